import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkOwnedRows, deleteOwnedRows } from "../delete-owned.js";
import { mustExist } from "../../references.js";

export const deleteApiKeys = defineActivity({
  operation: "delete_api_keys",
  type: "ACTIVITY_TYPE_DELETE_API_KEYS",
  intentKey: "deleteApiKeysIntent",
  resultKey: "deleteApiKeysResult",
  result: Type.Object({ apiKeyIds: IdList() }),
  sdkMethod: "deleteApiKeys",
  summary: "Remove API keys from a user",
  resource: "API_KEY",
  action: "DELETE",
  policyParams: { user_id: "userId", api_key_ids: "apiKeyIds" },
  parameters: Type.Object({ userId: Id(), apiKeyIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }) }),
  selfServiceUserId: (params) => params.userId,
  async validate({ db, organization }, { userId, apiKeyIds }) {
    await mustExist(requireUser(db, organization.id, userId));
    await mustExist(checkOwnedRows(db, "api_keys", "API key", { organizationId: organization.id, userId }, apiKeyIds, "apiKeyIds"));
  },
  async execute({ tx, organization }, { userId, apiKeyIds }) {
    await requireUser(tx, organization.id, userId);
    return {
      apiKeyIds: await deleteOwnedRows(tx, "api_keys", "API key", { organizationId: organization.id, userId }, apiKeyIds, "apiKeyIds"),
    };
  },
});
