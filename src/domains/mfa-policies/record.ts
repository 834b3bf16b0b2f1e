import { Type } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../../schema/timestamp.js";
import { RequiredAuthenticationMethodRecord, type RequiredStep } from "./methods.js";

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
