import { Type } from "@sinclair/typebox";
import { oauth2CredentialRecord, requireOauth2Credential, Oauth2CredentialRecord } from "../../../records/oauth2-credential.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getOauth2Credential = defineQuery({
  operation: "get_oauth2_credential",
  sdkMethod: "getOauth2Credential",
  summary: "One OAuth 2.0 credential (provider, client id, the encrypted secret as sent; never the secret)",
  body: Type.Object({ organizationId: Id(), oauth2CredentialId: Id() }),
  result: Type.Object({ oauth2Credential: Oauth2CredentialRecord }),
  async execute({ organization, services }, { oauth2CredentialId }) {
    return { oauth2Credential: oauth2CredentialRecord(await requireOauth2Credential(services.db, organization.id, oauth2CredentialId)) };
  },
});
