import { Type } from "@sinclair/typebox";
import { requirePrivateKey } from "../../../records/private-key.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { assertSafeToDelete } from "../../wallets/export-rule.js";

export const deletePrivateKeys = defineActivity({
  operation: "delete_private_keys",
  type: "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS",
  intentKey: "deletePrivateKeysIntent",
  resultKey: "deletePrivateKeysResult",
  result: Type.Object({ privateKeyIds: IdList() }),
  sdkMethod: "deletePrivateKeys",
  summary: "Delete private keys; keys never exported need deleteWithoutExport",
  resource: "PRIVATE_KEY",
  action: "DELETE",
  parameters: Type.Object({
    privateKeyIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }),
    deleteWithoutExport: Type.Optional(Type.Boolean()),
  }),
  async validate({ db, organization }, { privateKeyIds }) {
    for (const [index, id] of privateKeyIds.entries())
      await mustExist(requirePrivateKey(db, organization.id, id, `privateKeyIds[${index}]`));
  },
  async execute({ tx, organization }, { privateKeyIds, deleteWithoutExport }) {
    const keys = [];
    for (const [index, id] of privateKeyIds.entries())
      keys.push(await requirePrivateKey(tx, organization.id, id, `privateKeyIds[${index}]`));
    assertSafeToDelete(keys, "private key(s)", deleteWithoutExport);
    await tx.query("DELETE FROM private_keys WHERE id = ANY($1::text[]) AND organization_id = $2", [privateKeyIds, organization.id]);
    return { privateKeyIds };
  },
});
