import { notFound } from "../../errors.js";
import type { Queryable } from "../../store/database.js";
import { Type, type Static } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../../schema/timestamp.js";

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

export interface WalletAccountRow {
  id: string;
  organization_id: string;
  wallet_id: string;
  curve: string;
  path_format: string;
  path: string;
  address_format: string;
  address: string;
  public_key: string;
  sealed_private_key: string;
  name: string | null;
  exported: boolean;
  created_at: Date;
  updated_at: Date;
}

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

export const WalletRecord = Type.Object({
  walletId: Type.String(),
  walletName: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
  exported: Type.Boolean(),
  imported: Type.Boolean(),
});
export type WalletRecord = Static<typeof WalletRecord>;

export const WalletAccountRecord = Type.Object({
  walletAccountId: Type.String(),
  organizationId: Type.String(),
  walletId: Type.String(),
  curve: Type.String(),
  pathFormat: Type.String(),
  path: Type.String(),
  addressFormat: Type.String(),
  address: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
  publicKey: Type.String(),
  walletDetails: Type.Optional(WalletRecord),
  name: Type.Optional(Type.String()),
  caip2Prefix: Type.Optional(Type.String()),
});

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

/** What creating or importing a wallet answers (create_wallet, import_wallet, a sub-organization's wallet). */
export const WalletResult = Type.Object({ walletId: Type.String(), addresses: Type.Array(Type.String()) });

/** What creating or importing a private key answers, per key. */
export const PrivateKeyResult = Type.Object({ privateKeyId: Type.String(), addresses: Type.Array(KeyAddress) });

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

/** CAIP-2 namespaces of the chains an address format serves. */
function caip2Prefix(addressFormat: string): string | undefined {
  if (addressFormat === "ADDRESS_FORMAT_ETHEREUM") return "eip155";
  if (addressFormat === "ADDRESS_FORMAT_SOLANA") return "solana";
  if (addressFormat.startsWith("ADDRESS_FORMAT_BITCOIN_")) return "bip122";
  if (addressFormat === "ADDRESS_FORMAT_COSMOS" || addressFormat === "ADDRESS_FORMAT_SEI") return "cosmos";
  if (addressFormat === "ADDRESS_FORMAT_TRON") return "tron";
  if (addressFormat === "ADDRESS_FORMAT_SUI") return "sui";
  if (addressFormat === "ADDRESS_FORMAT_APTOS") return "aptos";
  if (addressFormat === "ADDRESS_FORMAT_XLM") return "stellar";
  if (addressFormat === "ADDRESS_FORMAT_XRP") return "xrpl";
  if (addressFormat.startsWith("ADDRESS_FORMAT_TON_")) return "ton";
  return undefined;
}

export function walletAccountRecord(row: WalletAccountRow, wallet?: WalletRow): Record<string, unknown> {
  const prefix = caip2Prefix(row.address_format);
  return {
    walletAccountId: row.id,
    organizationId: row.organization_id,
    walletId: row.wallet_id,
    curve: row.curve,
    pathFormat: row.path_format,
    path: row.path,
    addressFormat: row.address_format,
    address: row.address,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
    publicKey: row.public_key,
    ...(wallet ? { walletDetails: walletRecord(wallet) } : {}),
    ...(row.name !== null ? { name: row.name } : {}),
    ...(prefix ? { caip2Prefix: prefix } : {}),
  };
}

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

export async function findWallet(db: Queryable, organizationId: string, walletId: string): Promise<WalletRow | undefined> {
  const [row] = await db.query<WalletRow>("SELECT * FROM wallets WHERE id = $1 AND organization_id = $2", [walletId, organizationId]);
  return row;
}

export async function requireWallet(db: Queryable, organizationId: string, walletId: string, field = "walletId"): Promise<WalletRow> {
  const row = await findWallet(db, organizationId, walletId);
  if (!row) throw notFound(`${field}: no wallet ${JSON.stringify(walletId)} in organization ${organizationId}`, "WALLET_NOT_FOUND");
  return row;
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

export async function requireWalletAccountByAddress(
  db: Queryable,
  organizationId: string,
  address: string,
  field = "address",
): Promise<WalletAccountRow> {
  const [account] = await db.query<WalletAccountRow>(
    "SELECT * FROM wallet_accounts WHERE organization_id = $1 AND address = $2 ORDER BY seq LIMIT 1",
    [organizationId, address],
  );
  if (!account)
    throw notFound(
      `${field}: no wallet account with address ${JSON.stringify(address)} in organization ${organizationId}`,
      "WALLET_ACCOUNT_NOT_FOUND",
    );
  return account;
}

export async function requireWalletAccount(db: Queryable, organizationId: string, accountId: string, field: string): Promise<void> {
  const [account] = await db.query("SELECT id FROM wallet_accounts WHERE id = $1 AND organization_id = $2", [accountId, organizationId]);
  if (!account)
    throw notFound(
      `${field}: no wallet account ${JSON.stringify(accountId)} in organization ${organizationId}`,
      "WALLET_ACCOUNT_NOT_FOUND",
    );
}
