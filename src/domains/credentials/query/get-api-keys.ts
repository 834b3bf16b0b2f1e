import { Type } from "@sinclair/typebox";
import { apiKeyRecord, type ApiKeyRow, ApiKeyRecord } from "../../../records/api-key.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getApiKeys = defineQuery({
  operation: "get_api_keys",
  sdkMethod: "getApiKeys",
  summary: "The organization's API keys, or one user's",
  body: Type.Object({ organizationId: Id(), userId: Type.Optional(Id()) }),
  result: Type.Object({ apiKeys: Type.Array(ApiKeyRecord) }),
  async execute({ organization, services }, { userId }) {
    const rows = await services.db.query<ApiKeyRow>(
      `SELECT * FROM api_keys WHERE organization_id = $1 AND ($2::text IS NULL OR user_id = $2)
        AND (expires_at IS NULL OR expires_at > $3) ORDER BY seq`,
      [organization.id, userId ?? null, services.clock()],
    );
    return { apiKeys: rows.map(apiKeyRecord) };
  },
});
