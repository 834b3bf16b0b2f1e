import { Type } from "@sinclair/typebox";
import { oauth2CredentialRecord, type Oauth2CredentialRow, Oauth2CredentialRecord } from "../../../records/oauth2-credential.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const listOauth2Credentials = defineQuery({
  operation: "list_oauth2_credentials",
  sdkMethod: "listOauth2Credentials",
  summary: "The organization's OAuth 2.0 credentials, oldest first",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ oauth2Credentials: Type.Array(Oauth2CredentialRecord) }),
  async execute({ organization, services }) {
    const rows = await services.db.query<Oauth2CredentialRow>(
      "SELECT * FROM oauth2_credentials WHERE organization_id = $1 ORDER BY created_at, id",
      [organization.id],
    );
    return { oauth2Credentials: rows.map(oauth2CredentialRecord) };
  },
});
