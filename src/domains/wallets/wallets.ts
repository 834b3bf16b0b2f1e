import { Type, type Static } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { setImmediate } from "node:timers/promises";
import { ADDRESS_FORMATS, AddressFormatError, curvesForAddressFormat, deriveAddress } from "../../crypto/addresses/index.js";
import { deriveKey, type Curve } from "../../crypto/hd/derive.js";
import { InvalidPathError, parsePath } from "../../crypto/hd/path.js";
import { generateMnemonic, MNEMONIC_LENGTHS, parseWalletSecret, walletSeedAsync } from "../../crypto/mnemonic.js";
import { alreadyExists, invalidArgument, resourceExhausted } from "../../errors.js";
import type { WalletRow } from "../../records/wallet.js";
import type { Services } from "../../services.js";
import { Name, StringEnum } from "../../schema/common.js";
import type { Queryable } from "../../store/database.js";
import { lockOrganizationForLimits } from "../../records/organization.js";

export const CURVES = ["CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"] as const;
export const CurveParam = StringEnum(CURVES);
export const AddressFormatParam = StringEnum(ADDRESS_FORMATS);

export const WalletAccountParams = Type.Object({
  curve: CurveParam,
  pathFormat: StringEnum(["PATH_FORMAT_BIP32"]),
  path: Type.String({ minLength: 1, maxLength: 1024 }),
  addressFormat: AddressFormatParam,
  name: Type.Optional(Name("Optional human-readable name for the account")),
});
export type WalletAccountInput = Static<typeof WalletAccountParams>;

export const WalletAccounts = Type.Array(WalletAccountParams, { maxItems: 500 });

export const WalletParams = Type.Object({
  walletName: Name("Human-readable name for a Wallet"),
  accounts: WalletAccounts,
  mnemonicLength: Type.Optional(Type.Integer({ description: "12, 15, 18, 21 or 24; default 12" })),
});

/** Documented: 100 HD wallets per organization. */
export const WALLETS_PER_ORGANIZATION = 100;

export function checkMnemonicLength(length: number | undefined, field: string): number {
  const words = length ?? 12;
  if (!MNEMONIC_LENGTHS.includes(words as (typeof MNEMONIC_LENGTHS)[number])) {
    throw invalidArgument(`${field}: ${words} is not a BIP-39 mnemonic length; use 12, 15, 18, 21 or 24`, [
      { field, description: "must be 12, 15, 18, 21 or 24" },
    ]);
  }
  return words;
}

export interface DerivedAccount {
  address: string;
  publicKey: string;
  privateKey: Uint8Array;
}

/** An account's input checks (for `validate`): the curve/format pairing and the path, refused with 400 naming the field. */
export function checkWalletAccounts(accounts: WalletAccountInput[], field: string): void {
  for (const [index, account] of accounts.entries()) {
    const at = `${field}[${index}]`;
    const curves = curvesForAddressFormat(account.addressFormat);
    if (!curves.includes(account.curve as Curve)) {
      throw invalidArgument(`${at}: ${account.addressFormat} is derived from ${curves.join(" or ")}, not ${account.curve}`, [
        { field: `${at}.curve`, description: `must be ${curves.join(" or ")} for ${account.addressFormat}` },
      ]);
    }
    try {
      parsePath(account.path);
    } catch (error) {
      if (!(error instanceof InvalidPathError)) throw error;
      throw invalidArgument(`${at}.path: ${error.message}`, [{ field: `${at}.path`, description: error.message }]);
    }
  }
}

/** A new wallet's input checks (for `validate`): its mnemonic length and its accounts. */
export function checkNewWallet(
  wallet: { mnemonicLength?: number; accounts: WalletAccountInput[] },
  fields: { mnemonicLength: string; accounts: string },
): void {
  checkMnemonicLength(wallet.mnemonicLength, fields.mnemonicLength);
  checkWalletAccounts(wallet.accounts, fields.accounts);
}

/**
 * Derives one account whose input checkWalletAccounts accepted; an impossible pairing or path found here
 * anyway is still a 400 naming the field.
 */
export function deriveAccount(seed: Uint8Array, account: WalletAccountInput, field: string): DerivedAccount {
  try {
    const key = deriveKey(seed, account.curve as Curve, account.path);
    return {
      address: deriveAddress(account.addressFormat, account.curve as Curve, key.publicKey),
      publicKey: Buffer.from(key.publicKey).toString("hex"),
      privateKey: key.privateKey,
    };
  } catch (error) {
    if (error instanceof InvalidPathError) {
      throw invalidArgument(`${field}.path: ${error.message}`, [{ field: `${field}.path`, description: error.message }]);
    }
    if (error instanceof AddressFormatError) {
      throw invalidArgument(`${field}: ${error.message}`, [{ field, description: error.message }]);
    }
    throw error;
  }
}

/**
 * Why a new wallet named `name` has no room (called after the insert that checks for room found none): the
 * organization at its wallet limit, or the name taken — read by one statement, under the organization's lock.
 */
async function refuseNewWallet(tx: Queryable, organizationId: string, name: string, field: string): Promise<never> {
  const [{ count, taken } = { count: 0, taken: null }] = await tx.query<{ count: number; taken: string | null }>(
    `SELECT count(*)::int AS count, (array_agg(id) FILTER (WHERE name = $2))[1] AS taken
       FROM wallets WHERE organization_id = $1`,
    [organizationId, name],
  );
  if (count >= WALLETS_PER_ORGANIZATION) {
    throw resourceExhausted(
      `organization ${organizationId} already has the maximum of ${WALLETS_PER_ORGANIZATION} wallets`,
      "REQUEST_INVALID",
    );
  }
  if (taken) throw walletNameTaken(organizationId, name, taken, field);
  throw new Error(`wallet ${JSON.stringify(name)} of organization ${organizationId} was not inserted, yet there is room for it`);
}

const walletNameTaken = (organizationId: string, name: string, walletId: string, field: string) =>
  alreadyExists(`${field}: a wallet named ${JSON.stringify(name)} already exists in organization ${organizationId} (wallet ${walletId})`);

export async function assertWalletNameFree(tx: Queryable, organizationId: string, name: string, field: string): Promise<void> {
  const [taken] = await tx.query<{ id: string }>("SELECT id FROM wallets WHERE organization_id = $1 AND name = $2", [organizationId, name]);
  if (taken) throw walletNameTaken(organizationId, name, taken.id, field);
}

export interface NewWallet {
  organizationId: string;
  name: string;
  /** The mnemonic, optionally followed by a newline and a BIP-39 passphrase. */
  secret: string;
  imported: boolean;
  now: Date;
}

/** Stores a wallet (secret sealed) with its accounts, derived beforehand; returns its id and the accounts' addresses. */
export async function insertWallet(
  tx: Queryable,
  services: Services,
  wallet: NewWallet,
  accounts: WalletAccountInput[],
  derived: DerivedAccount[],
  fields: { name: string; accounts: string },
): Promise<{ walletId: string; addresses: string[] }> {
  // The organization locked for its wallet limit (lockOrganizationForLimits); the insert, a statement after the lock,
  // counts the wallets and checks the name itself, and only when it inserts nothing is the reason read. The lock's
  // answer is awaited with the insert's: statements run in the order issued (Queryable). The wallet holds no accounts
  // yet, so only the organization's account names are read (when the accounts have names).
  const locked = lockOrganizationForLimits(tx, wallet.organizationId);
  locked.catch(() => undefined); // its failure fails every statement after it, which reports it
  const walletId = randomUUID();
  const rows = await newAccountRows(
    tx,
    services,
    { id: walletId, organizationId: wallet.organizationId },
    accounts,
    derived,
    fields.accounts,
    {
      newWallet: true,
    },
  );
  // The wallet and its accounts in one statement: the accounts' foreign key is checked at its end, once the wallet is in.
  const [written] = await tx.query<{ inserted: boolean }>(
    `WITH wallet AS (
       INSERT INTO wallets (id, organization_id, name, sealed_mnemonic, imported, created_at, updated_at)
       SELECT $1, $2, $3, $4, $5, $6, $6
        WHERE (SELECT count(*) FROM wallets WHERE organization_id = $2) < $7
          AND NOT EXISTS (SELECT 1 FROM wallets WHERE organization_id = $2 AND name = $3)
       RETURNING id
     ), accounts AS (${insertAccountsSql({ organizationId: "$2", walletId: "wallet.id", now: "$6", firstColumn: 8, joined: "wallet" })})
     SELECT EXISTS (SELECT 1 FROM wallet) AS inserted`,
    [
      walletId,
      wallet.organizationId,
      wallet.name,
      services.kek.seal(new TextEncoder().encode(wallet.secret), `wallet:${walletId}`),
      wallet.imported,
      wallet.now,
      WALLETS_PER_ORGANIZATION,
      ...accountColumns(rows),
    ],
  );
  await locked;
  if (!written?.inserted) await refuseNewWallet(tx, wallet.organizationId, wallet.name, fields.name);
  return { walletId, addresses: derived.slice(0, accounts.length).map((account) => account.address) };
}

/** A new wallet's secret and its accounts, generated and derived before the activity's transaction. */
export interface PreparedWallet {
  secret: string;
  accounts: DerivedAccount[];
}

/** A new mnemonic and its accounts: CPU work for `prepare`, off the transaction (and mostly off the event loop). */
export async function prepareNewWallet(
  mnemonicLength: number | undefined,
  accounts: WalletAccountInput[],
  fields: { mnemonicLength: string; accounts: string },
): Promise<PreparedWallet> {
  const secret = generateMnemonic(checkMnemonicLength(mnemonicLength, fields.mnemonicLength));
  // Generated here, so already in the form parseWalletSecret checks for (whose wordlist checks cost ≈ 0.1 ms).
  return { secret, accounts: await deriveAccounts(await walletSeedAsync({ mnemonic: secret, passphrase: "" }), accounts, fields.accounts) };
}

/**
 * Derives accounts in order, letting the event loop serve other requests between two accounts: one
 * account costs a few milliseconds of CPU (about 10 ms for a secp256k1 path on a busy 2-core machine), so
 * no other request waits longer than that, however many accounts are asked for.
 */
export async function deriveAccounts(seed: Uint8Array, accounts: WalletAccountInput[], field: string): Promise<DerivedAccount[]> {
  const derived: DerivedAccount[] = [];
  for (const [index, account] of accounts.entries()) {
    if (index > 0) await setImmediate();
    derived.push(deriveAccount(seed, account, `${field}[${index}]`));
  }
  return derived;
}

/** The seed of a stored wallet, opened from its sealed secret (PBKDF2 on libuv's thread pool). */
export async function openWalletSeed(services: Services, wallet: WalletRow): Promise<Uint8Array> {
  const secret = new TextDecoder().decode(services.kek.open(wallet.sealed_mnemonic, `wallet:${wallet.id}`));
  return walletSeedAsync(parseWalletSecret(secret));
}

/** Stores accounts derived beforehand (`deriveAccounts`) in an existing wallet; with `persist` false they are only previewed. */
export async function insertWalletAccounts(
  tx: Queryable,
  services: Services,
  wallet: { id: string; organizationId: string },
  accounts: WalletAccountInput[],
  derivedAccounts: DerivedAccount[],
  now: Date,
  field: string,
  { persist = true }: { persist?: boolean } = {},
): Promise<string[]> {
  const addresses = accounts.map((_, index) => derivedAccounts[index]!.address);
  if (!persist) return addresses;
  const rows = await newAccountRows(tx, services, wallet, accounts, derivedAccounts, field, { newWallet: false });
  if (rows.length === 0) return addresses;
  await tx.query(insertAccountsSql({ organizationId: "$1::text", walletId: "$2::text", now: "$3::timestamptz", firstColumn: 4 }), [
    wallet.organizationId,
    wallet.id,
    now,
    ...accountColumns(rows),
  ]);
  return addresses;
}

/** An account's row as `insertAccountsSql` takes it: id, curve, path format, path, address format, address, public key, sealed private key, name. */
type AccountRow = (string | null)[];
const ACCOUNT_COLUMNS = 9;

/**
 * The rows of new accounts, their private keys sealed, after checking that the wallet holds none of them (a wallet
 * inserted by the same transaction, `newWallet`, holds none, so it is not read) and that no account of the
 * organization has their names.
 */
async function newAccountRows(
  tx: Queryable,
  services: Services,
  wallet: { id: string; organizationId: string },
  accounts: WalletAccountInput[],
  derivedAccounts: DerivedAccount[],
  field: string,
  { newWallet }: { newWallet: boolean },
): Promise<AccountRow[]> {
  // What the wallet and the organization hold, read once; then one insert for all the accounts.
  const held = newWallet
    ? []
    : await tx.query<{ id: string; identity: string }>(
        "SELECT id, curve || ' ' || path || ' ' || address_format AS identity FROM wallet_accounts WHERE wallet_id = $1",
        [wallet.id],
      );
  const existingByIdentity = new Map(held.map((row) => [row.identity, row.id]));
  const names = accounts.flatMap((account) => (account.name === undefined ? [] : [account.name]));
  const takenNames = new Set(
    names.length === 0
      ? []
      : (
          await tx.query<{ name: string }>("SELECT name FROM wallet_accounts WHERE organization_id = $1 AND name = ANY($2::text[])", [
            wallet.organizationId,
            names,
          ])
        ).map((row) => row.name),
  );
  const seen = new Set<string>();
  const rows: AccountRow[] = [];
  for (const [index, account] of accounts.entries()) {
    const at = `${field}[${index}]`;
    const derived = derivedAccounts[index]!;
    const identity = `${account.curve} ${account.path} ${account.addressFormat}`;
    const existing = existingByIdentity.get(identity);
    if (existing || seen.has(identity)) {
      throw alreadyExists(
        `${at}: wallet ${wallet.id} already has an ${account.addressFormat} account at ${account.path} on ${account.curve}${existing ? ` (account ${existing})` : ""}`,
      );
    }
    seen.add(identity);
    if (account.name !== undefined) {
      if (takenNames.has(account.name))
        throw alreadyExists(
          `${at}.name: a wallet account named ${JSON.stringify(account.name)} already exists in organization ${wallet.organizationId}`,
        );
      takenNames.add(account.name);
    }
    const accountId = randomUUID();
    rows.push([
      accountId,
      account.curve,
      account.pathFormat,
      account.path,
      account.addressFormat,
      derived.address,
      derived.publicKey,
      services.kek.seal(derived.privateKey, `wallet-account:${accountId}`),
      account.name ?? null,
    ]);
  }
  return rows;
}

/** `rows` as the parameters `insertAccountsSql` reads: one array per column. */
const accountColumns = (rows: AccountRow[]) => Array.from({ length: ACCOUNT_COLUMNS }, (_, i) => rows.map((row) => row[i] ?? null));

/**
 * The insert of accounts, in the order given, from `accountColumns` at parameters `firstColumn` onwards; the
 * organization, the wallet and the time are SQL expressions, which may read the relation `joined` (none inserted without its row).
 */
function insertAccountsSql(at: { organizationId: string; walletId: string; now: string; firstColumn: number; joined?: string }): string {
  const columns = Array.from({ length: ACCOUNT_COLUMNS }, (_, i) => `$${at.firstColumn + i}::text[]`).join(", ");
  return `INSERT INTO wallet_accounts (id, organization_id, wallet_id, curve, path_format, path, address_format, address, public_key, sealed_private_key, name, created_at, updated_at)
     SELECT a.id, ${at.organizationId}, ${at.walletId}, a.curve, a.path_format, a.path, a.address_format, a.address, a.public_key, a.sealed_private_key, a.name, ${at.now}, ${at.now}
       FROM ${at.joined ? `${at.joined}, ` : ""}unnest(${columns})
            WITH ORDINALITY AS a(id, curve, path_format, path, address_format, address, public_key, sealed_private_key, name, position)
      ORDER BY a.position`;
}
