import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { defineActivity } from "../../../operations/activity-definition.js";
import { Oauth2CredentialFields, sealClientSecret } from "../oauth2-credentials.js";

export const createOauth2Credential = defineActivity({
  operation: "create_oauth2_credential",
  type: "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
  intentKey: "createOauth2CredentialIntent",
  resultKey: "createOauth2CredentialResult",
  result: Type.Object({ oauth2CredentialId: Type.String() }),
  sdkMethod: "createOauth2Credential",
  summary: "Register an OAuth 2.0 client (X or Discord) whose secret is sent encrypted to Strongroom's encryption key and kept sealed",
  resource: "AUTH",
  action: "CREATE",
  parameters: Type.Object(Oauth2CredentialFields),
  async execute({ tx, organization, now, services }, { provider, clientId, encryptedClientSecret }) {
    const id = randomUUID();
    const sealed = sealClientSecret(services, id, encryptedClientSecret);
    await tx.query(
      `INSERT INTO oauth2_credentials (id, organization_id, provider, client_id, encrypted_client_secret, sealed_client_secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [id, organization.id, provider, clientId, encryptedClientSecret, sealed, now],
    );
    return { oauth2CredentialId: id };
  },
});
