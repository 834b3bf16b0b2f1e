import { Type } from "@sinclair/typebox";
import { oauthProviderRecord, type OauthProviderRow, OauthProviderRecord } from "../../../records/oauth-provider.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getOauthProviders = defineQuery({
  operation: "get_oauth_providers",
  sdkMethod: "getOauthProviders",
  summary: "The organization's linked OIDC identities, or one user's",
  body: Type.Object({ organizationId: Id(), userId: Type.Optional(Id()) }),
  result: Type.Object({ oauthProviders: Type.Array(OauthProviderRecord) }),
  async execute({ organization, services }, { userId }) {
    const rows = await services.db.query<OauthProviderRow>(
      "SELECT * FROM oauth_providers WHERE organization_id = $1 AND ($2::text IS NULL OR user_id = $2) ORDER BY created_at, id",
      [organization.id, userId ?? null],
    );
    return { oauthProviders: rows.map(oauthProviderRecord) };
  },
});
