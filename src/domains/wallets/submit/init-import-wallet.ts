import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { createImportBundle } from "../import-keys.js";

export const initImportWallet = defineActivity({
  operation: "init_import_wallet",
  type: "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
  intentKey: "initImportWalletIntent",
  resultKey: "initImportWalletResult",
  result: Type.Object({ importBundle: Type.String() }),
  sdkMethod: "initImportWallet",
  summary: "Start a wallet import: a signed bundle with a one-time key to encrypt the mnemonic to",
  resource: "WALLET",
  action: "IMPORT",
  parameters: Type.Object({ userId: Id() }),
  async validate({ db, organization }, { userId }) {
    await mustExist(requireUser(db, organization.id, userId));
  },
  async execute({ tx, organization, now, services }, { userId }) {
    await requireUser(tx, organization.id, userId);
    return { importBundle: await createImportBundle(tx, services, { organizationId: organization.id, userId, kind: "WALLET", now }) };
  },
});
