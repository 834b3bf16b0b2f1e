import { Type } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../../schema/timestamp.js";

export interface SmartContractInterfaceRow {
  id: string;
  organization_id: string;
  address: string;
  type: string;
  label: string;
  notes: string;
  interface: string;
  created_at: Date;
  updated_at: Date;
}

export const SmartContractInterfaceRecord = Type.Object({
  organizationId: Type.String(),
  smartContractInterfaceId: Type.String(),
  smartContractAddress: Type.String(),
  smartContractInterface: Type.String(),
  type: Type.String(),
  label: Type.String(),
  notes: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
});

export function smartContractInterfaceRecord(row: SmartContractInterfaceRow): Record<string, unknown> {
  return {
    organizationId: row.organization_id,
    smartContractInterfaceId: row.id,
    smartContractAddress: row.address,
    smartContractInterface: row.interface,
    type: row.type,
    label: row.label,
    notes: row.notes,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
  };
}
