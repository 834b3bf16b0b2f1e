import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";
import { Type } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";
import { WalletRecord, walletRecord, type WalletRow } from "./wallet.js";

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
