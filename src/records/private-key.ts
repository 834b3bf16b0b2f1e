import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";
import { Type } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";

export interface PrivateKeyRow {
  id: string;
  organization_id: string;
  name: string;
  curve: string;
  public_key: string;
  sealed_private_key: string;
  exported: boolean;
  imported: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A key's address in one format, as private key records and results list them. */
export const KeyAddress = Type.Object({ format: Type.String(), address: Type.String() });

export const PrivateKeyRecord = Type.Object({
  privateKeyId: Type.String(),
  publicKey: Type.String(),
  privateKeyName: Type.String(),
  curve: Type.String(),
  addresses: Type.Array(KeyAddress),
  privateKeyTags: Type.Array(Type.String()),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
  exported: Type.Boolean(),
  imported: Type.Boolean(),
});

/** What creating or importing a private key answers, per key. */
export const PrivateKeyResult = Type.Object({ privateKeyId: Type.String(), addresses: Type.Array(KeyAddress) });

export interface PrivateKeyExtras {
  addresses: { format: string; address: string }[];
  tagIds: string[];
}

export function privateKeyRecord(row: PrivateKeyRow, extras: PrivateKeyExtras): Record<string, unknown> {
  return {
    privateKeyId: row.id,
    publicKey: row.public_key,
    privateKeyName: row.name,
    curve: row.curve,
    addresses: extras.addresses,
    privateKeyTags: extras.tagIds,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
    exported: row.exported,
    imported: row.imported,
  };
}

export async function requirePrivateKey(
  db: Queryable,
  organizationId: string,
  privateKeyId: string,
  field = "privateKeyId",
): Promise<PrivateKeyRow> {
  const [row] = await db.query<PrivateKeyRow>("SELECT * FROM private_keys WHERE id = $1 AND organization_id = $2", [
    privateKeyId,
    organizationId,
  ]);
  if (!row)
    throw notFound(`${field}: no private key ${JSON.stringify(privateKeyId)} in organization ${organizationId}`, "PRIVATE_KEY_NOT_FOUND");
  return row;
}

/** Private key records with their addresses and tags, in creation order. */
export async function loadPrivateKeyRecords(
  db: Queryable,
  organizationId: string,
  privateKeyIds?: string[],
): Promise<Record<string, unknown>[]> {
  const rows = await db.query<PrivateKeyRow>(
    `SELECT * FROM private_keys WHERE organization_id = $1 ${privateKeyIds ? "AND id = ANY($2::text[])" : ""} ORDER BY seq`,
    privateKeyIds ? [organizationId, privateKeyIds] : [organizationId],
  );
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const addresses = await db.query<{ private_key_id: string; format: string; address: string }>(
    "SELECT private_key_id, format, address FROM private_key_addresses WHERE private_key_id = ANY($1::text[]) ORDER BY private_key_id, position",
    [ids],
  );
  const tags = await db.query<{ private_key_id: string; tag_id: string }>(
    "SELECT a.private_key_id, a.tag_id FROM private_key_tag_assignments a JOIN private_key_tags t ON t.id = a.tag_id WHERE a.private_key_id = ANY($1::text[]) ORDER BY t.created_at, t.id",
    [ids],
  );
  return rows.map((row) =>
    privateKeyRecord(row, {
      addresses: addresses.filter((a) => a.private_key_id === row.id).map(({ format, address }) => ({ format, address })),
      tagIds: tags.filter((t) => t.private_key_id === row.id).map((t) => t.tag_id),
    }),
  );
}
