import { Type, type Static } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";

export const OauthProviderRecord = Type.Object({
  providerId: Type.String(),
  providerName: Type.String(),
  issuer: Type.String(),
  audience: Type.String(),
  subject: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
});
export type OauthProviderRecord = Static<typeof OauthProviderRecord>;

export interface OauthProviderRow {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  issuer: string;
  audience: string;
  subject: string;
  created_at: Date;
  updated_at: Date;
}

export function oauthProviderRecord(row: OauthProviderRow): OauthProviderRecord {
  return {
    providerId: row.id,
    providerName: row.name,
    issuer: row.issuer,
    audience: row.audience,
    subject: row.subject,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
  };
}
