import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";
import { Type, type Static } from "@sinclair/typebox";
import { StringEnum } from "../schema/common.js";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";

export const OAUTH2_PROVIDERS = ["OAUTH2_PROVIDER_X", "OAUTH2_PROVIDER_DISCORD"] as const;
export type Oauth2Provider = (typeof OAUTH2_PROVIDERS)[number];

export interface Oauth2CredentialRow {
  id: string;
  organization_id: string;
  provider: Oauth2Provider;
  client_id: string;
  encrypted_client_secret: string;
  sealed_client_secret: string;
  created_at: Date;
  updated_at: Date;
}

export const Oauth2CredentialRecord = Type.Object({
  oauth2CredentialId: Type.String(),
  organizationId: Type.String(),
  provider: StringEnum(OAUTH2_PROVIDERS),
  clientId: Type.String(),
  /** The envelope the client sent, encrypted to Strongroom's encryption key; never the secret itself. */
  encryptedClientSecret: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
});
export type Oauth2CredentialRecord = Static<typeof Oauth2CredentialRecord>;

export function oauth2CredentialRecord(row: Oauth2CredentialRow): Oauth2CredentialRecord {
  return {
    oauth2CredentialId: row.id,
    organizationId: row.organization_id,
    provider: row.provider,
    clientId: row.client_id,
    encryptedClientSecret: row.encrypted_client_secret,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
  };
}

/** The kek context a credential's client secret is sealed under: bound to the credential. */
export const clientSecretContext = (credentialId: string) => `oauth2-client-secret:${credentialId}`;

export async function requireOauth2Credential(
  db: Queryable,
  organizationId: string,
  id: string,
  field = "oauth2CredentialId",
): Promise<Oauth2CredentialRow> {
  const [row] = await db.query<Oauth2CredentialRow>("SELECT * FROM oauth2_credentials WHERE id = $1 AND organization_id = $2", [
    id,
    organizationId,
  ]);
  if (!row)
    throw notFound(
      `${field}: no OAuth 2.0 credential ${JSON.stringify(id)} in organization ${organizationId}`,
      "OAUTH2_CREDENTIAL_NOT_FOUND",
    );
  return row;
}
