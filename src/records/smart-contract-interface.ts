import { Type } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";
import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";

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

export async function requireSmartContractInterface(
  db: Queryable,
  organizationId: string,
  id: string,
  field = "smartContractInterfaceId",
): Promise<void> {
  const [row] = await db.query("SELECT id FROM smart_contract_interfaces WHERE id = $1 AND organization_id = $2", [id, organizationId]);
  if (!row) throw notFound(`${field}: no smart contract interface ${JSON.stringify(id)} in organization ${organizationId}`);
}
