import type { ActivityDefinition } from "../definition.js";
import { createPrivateKeyTag } from "./create-private-key-tag.js";
import { createPrivateKeys } from "./create-private-keys.js";
import { deletePrivateKeyTags } from "./delete-private-key-tags.js";
import { deletePrivateKeys } from "./delete-private-keys.js";
import { exportPrivateKey } from "./export-private-key.js";
import { importPrivateKey } from "./import-private-key.js";
import { initImportPrivateKey } from "./init-import-private-key.js";
import { updatePrivateKeyTag } from "./update-private-key-tag.js";

export const privateKeyActivities: ActivityDefinition[] = [
  createPrivateKeys,
  deletePrivateKeys,
  createPrivateKeyTag,
  updatePrivateKeyTag,
  deletePrivateKeyTags,
  exportPrivateKey,
  initImportPrivateKey,
  importPrivateKey,
];
