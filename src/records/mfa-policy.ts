import { Type } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";

export const AUTHENTICATION_TYPES = [
  "AUTHENTICATION_TYPE_EMAIL_OTP",
  "AUTHENTICATION_TYPE_SMS_OTP",
  "AUTHENTICATION_TYPE_PASSKEY",
  "AUTHENTICATION_TYPE_API_KEY",
  "AUTHENTICATION_TYPE_OAUTH",
  "AUTHENTICATION_TYPE_SESSION",
] as const;
export type AuthenticationType = (typeof AUTHENTICATION_TYPES)[number];

/** One step of a stored policy: any one of these methods proves it. */
export interface RequiredStep {
  any: Array<{ type: AuthenticationType; id?: string }>;
}

export const AuthenticationMethodRecord = Type.Object({ type: Type.String(), id: Type.Optional(Type.String()) });
export const RequiredAuthenticationMethodRecord = Type.Object({ any: Type.Array(AuthenticationMethodRecord) });

export interface MfaPolicyRow {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  condition: string;
  required_methods: RequiredStep[];
  position: number | string;
  notes: string;
  created_at: Date;
  updated_at: Date;
}

export const MfaPolicyRecord = Type.Object({
  mfaPolicyId: Type.String(),
  mfaPolicyName: Type.String(),
  condition: Type.String(),
  requiredAuthenticationMethods: Type.Array(RequiredAuthenticationMethodRecord),
  order: Type.Integer(),
  notes: Type.Optional(Type.String()),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
});

export function mfaPolicyRecord(row: MfaPolicyRow) {
  return {
    mfaPolicyId: row.id,
    mfaPolicyName: row.name,
    condition: row.condition,
    requiredAuthenticationMethods: row.required_methods,
    order: Number(row.position),
    notes: row.notes,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
  };
}
