import { Type } from "@sinclair/typebox";
import { requireOauth2Credential } from "../../../records/oauth2-credential.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { Oauth2CredentialFields, sealClientSecret } from "../oauth2-credentials.js";

export const updateOauth2Credential = defineActivity({
  operation: "update_oauth2_credential",
  type: "ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL",
  intentKey: "updateOauth2CredentialIntent",
  resultKey: "updateOauth2CredentialResult",
  result: Type.Object({ oauth2CredentialId: Type.String() }),
  sdkMethod: "updateOauth2Credential",
  summary: "Replace an OAuth 2.0 credential's provider, client id and (encrypted) client secret",
  resource: "AUTH",
  action: "UPDATE",
  parameters: Type.Object({ oauth2CredentialId: Id("The OAuth 2.0 credential to update"), ...Oauth2CredentialFields }),
  async execute({ tx, organization, now, services }, { oauth2CredentialId, provider, clientId, encryptedClientSecret }) {
    await requireOauth2Credential(tx, organization.id, oauth2CredentialId);
    const sealed = sealClientSecret(services, oauth2CredentialId, encryptedClientSecret);
    await tx.query(
      `UPDATE oauth2_credentials SET provider = $3, client_id = $4, encrypted_client_secret = $5, sealed_client_secret = $6, updated_at = $7
       WHERE id = $1 AND organization_id = $2`,
      [oauth2CredentialId, organization.id, provider, clientId, encryptedClientSecret, sealed, now],
    );
    return { oauth2CredentialId };
  },
});
