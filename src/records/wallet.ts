import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";
import { Type, type Static } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";

export interface WalletRow {
  id: string;
  organization_id: string;
  name: string;
  sealed_mnemonic: string;
  exported: boolean;
  imported: boolean;
  created_at: Date;
  updated_at: Date;
}

export const WalletRecord = Type.Object({
  walletId: Type.String(),
  walletName: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
  exported: Type.Boolean(),
  imported: Type.Boolean(),
});
export type WalletRecord = Static<typeof WalletRecord>;

/** What creating or importing a wallet answers (create_wallet, import_wallet, a sub-organization's wallet). */
export const WalletResult = Type.Object({ walletId: Type.String(), addresses: Type.Array(Type.String()) });

export function walletRecord(row: WalletRow): WalletRecord {
  return {
    walletId: row.id,
    walletName: row.name,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
    exported: row.exported,
    imported: row.imported,
  };
}

export async function findWallet(db: Queryable, organizationId: string, walletId: string): Promise<WalletRow | undefined> {
  const [row] = await db.query<WalletRow>("SELECT * FROM wallets WHERE id = $1 AND organization_id = $2", [walletId, organizationId]);
  return row;
}

export async function requireWallet(db: Queryable, organizationId: string, walletId: string, field = "walletId"): Promise<WalletRow> {
  const row = await findWallet(db, organizationId, walletId);
  if (!row) throw notFound(`${field}: no wallet ${JSON.stringify(walletId)} in organization ${organizationId}`, "WALLET_NOT_FOUND");
  return row;
}
