import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { apiKeyRecord, type ApiKeyRow, ApiKeyRecord } from "../../../records/api-key.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getApiKey = defineQuery({
  operation: "get_api_key",
  sdkMethod: "getApiKey",
  summary: "One API key of the organization",
  body: Type.Object({ organizationId: Id(), apiKeyId: Id() }),
  result: Type.Object({ apiKey: ApiKeyRecord }),
  async execute({ organization, services, now }, { apiKeyId }) {
    const [row] = await services.db.query<ApiKeyRow>("SELECT * FROM api_keys WHERE id = $1 AND organization_id = $2", [
      apiKeyId,
      organization.id,
    ]);
    if (!row || (row.expires_at && row.expires_at <= now)) {
      throw notFound(`no API key ${JSON.stringify(apiKeyId)} in organization ${organization.id}`, "CREDENTIAL_NOT_FOUND");
    }
    return { apiKey: apiKeyRecord(row) };
  },
});
