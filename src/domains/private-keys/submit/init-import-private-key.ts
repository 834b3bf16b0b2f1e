import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { createImportBundle } from "../../wallets/import-keys.js";

export const initImportPrivateKey = defineActivity({
  operation: "init_import_private_key",
  type: "ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY",
  intentKey: "initImportPrivateKeyIntent",
  resultKey: "initImportPrivateKeyResult",
  result: Type.Object({ importBundle: Type.String() }),
  sdkMethod: "initImportPrivateKey",
  summary: "Start a private key import: a signed bundle with a one-time key to encrypt the private key to",
  resource: "PRIVATE_KEY",
  action: "IMPORT",
  parameters: Type.Object({ userId: Id() }),
  async validate({ db, organization }, { userId }) {
    await mustExist(requireUser(db, organization.id, userId));
  },
  async execute({ tx, organization, now, services }, { userId }) {
    await requireUser(tx, organization.id, userId);
    return { importBundle: await createImportBundle(tx, services, { organizationId: organization.id, userId, kind: "PRIVATE_KEY", now }) };
  },
});
