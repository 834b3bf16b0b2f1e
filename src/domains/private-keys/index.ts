import type { Domain } from "../../operations/domain.js";
import { createPrivateKeyTag } from "./submit/create-private-key-tag.js";
import { createPrivateKeys } from "./submit/create-private-keys.js";
import { deletePrivateKeyTags } from "./submit/delete-private-key-tags.js";
import { deletePrivateKeys } from "./submit/delete-private-keys.js";
import { exportPrivateKey } from "./submit/export-private-key.js";
import { getPrivateKey } from "./query/get-private-key.js";
import { importPrivateKey } from "./submit/import-private-key.js";
import { initImportPrivateKey } from "./submit/init-import-private-key.js";
import { listPrivateKeyTags } from "./query/list-private-key-tags.js";
import { listPrivateKeys } from "./query/list-private-keys.js";
import { updatePrivateKeyTag } from "./submit/update-private-key-tag.js";

export const privateKeysDomain: Domain = {
  name: "private-keys",
  activities: [
    createPrivateKeys,
    deletePrivateKeys,
    createPrivateKeyTag,
    updatePrivateKeyTag,
    deletePrivateKeyTags,
    exportPrivateKey,
    initImportPrivateKey,
    importPrivateKey,
  ],
  queries: [getPrivateKey, listPrivateKeys, listPrivateKeyTags],
};
