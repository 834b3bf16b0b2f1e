import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { ApiKeyParams } from "../params.js";
import { addApiKeys, checkNewCredentials } from "../credentials.js";
import { mustExist } from "../../references.js";

export const createApiKeys = defineActivity({
  operation: "create_api_keys",
  type: "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
  intentKey: "createApiKeysIntentV2",
  resultKey: "createApiKeysResult",
  result: Type.Object({ apiKeyIds: IdList() }),
  sdkMethod: "createApiKeys",
  summary: "Add API keys (P-256, secp256k1 or Ed25519, optionally expiring) to a user",
  resource: "API_KEY",
  action: "CREATE",
  policyParams: { user_id: "userId" },
  parameters: Type.Object({ apiKeys: Type.Array(ApiKeyParams, { minItems: 1, maxItems: 20 }), userId: Id() }),
  selfServiceUserId: (params) => params.userId,
  enrolls: (params) => ({ userId: params.userId, factors: ["api-key"] }),
  async validate({ db, organization }, { apiKeys, userId }) {
    await mustExist(requireUser(db, organization.id, userId));
    await checkNewCredentials({ apiKeys }, { apiKeys: "apiKeys", authenticators: "authenticators", oauthProviders: "oauthProviders" });
  },
  async execute({ tx, organization, now, requesterSessionProfileId }, { apiKeys, userId }) {
    await requireUser(tx, organization.id, userId);
    const owner = { organizationId: organization.id, userId, now, sessionProfileId: requesterSessionProfileId };
    return { apiKeyIds: await addApiKeys(tx, owner, apiKeys, "apiKeys") };
  },
});
