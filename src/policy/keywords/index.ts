import type { Abi } from "viem";
import { BITCOIN_NETWORKS } from "../../crypto/addresses/bitcoin.js";
import { ParsedTransactions } from "../../crypto/signing/parsed-transactions.js";
import type { ActivityDefinition, PolicyTarget } from "../../operations/activity-definition.js";
import type { Queryable } from "../../store/database.js";
import type { Value } from "../language/index.js";
import { bitcoinTransaction } from "./bitcoin.js";
import { eip712TypedData, eip7702Authorization, ethereumTransaction, toPolicyValue } from "./ethereum.js";
import { solanaTransaction } from "./solana.js";
import { tronTransaction } from "./tron.js";

type Params = Record<string, unknown>;

/** ACTIVITY_TYPE_SIGN_TRANSACTION_V2 → SIGN_TRANSACTION: the version-agnostic kind. */
export const activityKind = (type: string) => type.replace(/^ACTIVITY_TYPE_/, "").replace(/_V\d+$/, "");

interface WalletRow {
  id: string;
  name: string;
  exported: boolean;
  imported: boolean;
}

const walletValue = (w: WalletRow): Value => ({ id: w.id, label: w.name, exported: w.exported, imported: w.imported });

async function walletById(tx: Queryable, organizationId: string, id: unknown): Promise<Value | undefined> {
  if (typeof id !== "string") return undefined;
  const [row] = await tx.query<WalletRow>("SELECT id, name, exported, imported FROM wallets WHERE id = $1 AND organization_id = $2", [
    id,
    organizationId,
  ]);
  return row ? walletValue(row) : undefined;
}

async function privateKeyValue(tx: Queryable, organizationId: string, id: string): Promise<Value | undefined> {
  const [row] = await tx.query<WalletRow>("SELECT id, name, exported, imported FROM private_keys WHERE id = $1 AND organization_id = $2", [
    id,
    organizationId,
  ]);
  if (!row) return undefined;
  const tags = await tx.query<{ tag_id: string }>(
    "SELECT tag_id FROM private_key_tag_assignments WHERE private_key_id = $1 ORDER BY tag_id",
    [id],
  );
  return { ...(walletValue(row) as Record<string, Value>), tags: tags.map((t) => t.tag_id) };
}

/** The wallet, wallet account or private key a signWith / address names, and the address format it was named by. */
async function signingTarget(
  tx: Queryable,
  organizationId: string,
  signWith: string,
): Promise<{ keywords: Record<string, Value>; address?: string; addressFormat?: string }> {
  const [account] = await tx.query<{ address: string; address_format: string; wallet_id: string }>(
    "SELECT address, address_format, wallet_id FROM wallet_accounts WHERE organization_id = $1 AND address = $2 ORDER BY seq LIMIT 1",
    [organizationId, signWith],
  );
  if (account) {
    const wallet = await walletById(tx, organizationId, account.wallet_id);
    return {
      keywords: { wallet_account: { address: account.address }, ...(wallet ? { wallet, wallets: [wallet] } : {}) },
      address: account.address,
      addressFormat: account.address_format,
    };
  }
  const [keyAddress] = await tx.query<{ private_key_id: string; format: string }>(
    "SELECT private_key_id, format FROM private_key_addresses WHERE organization_id = $1 AND address = $2 LIMIT 1",
    [organizationId, signWith],
  );
  const keyId = keyAddress?.private_key_id ?? signWith;
  const key = await privateKeyValue(tx, organizationId, keyId);
  return key
    ? { keywords: { private_key: key }, ...(keyAddress ? { address: signWith, addressFormat: keyAddress.format } : {}) }
    : { keywords: {} };
}

async function uploadedAbi(tx: Queryable, organizationId: string, address: string | undefined): Promise<Abi | undefined> {
  if (!address) return undefined;
  const [row] = await tx.query<{ interface: string }>(
    "SELECT interface FROM smart_contract_interfaces WHERE organization_id = $1 AND lower(address) = lower($2) AND type = 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' ORDER BY seq DESC LIMIT 1",
    [organizationId, address],
  );
  try {
    return row ? (JSON.parse(row.interface) as Abi) : undefined;
  } catch {
    return undefined;
  }
}

/** Exposed params the API documents with a value when the request leaves them out. */
const OMITTED_PARAMS: Record<string, string> = { session_profile_id: "" };

/**
 * The condition keywords for one activity: activity metadata and exposed params, the wallet, account or
 * private key it targets, and the parsed transaction or payload it signs. Keywords an activity has no
 * value for stay absent, so a policy that reads them errors (MissingField), as documented. `parsed` is the
 * request's parse of its transaction (see ParsedTransactions), made once for all its steps.
 */
export async function conditionKeywords(
  tx: Queryable,
  organizationId: string,
  definition: ActivityDefinition,
  params: Params,
  parsed: ParsedTransactions = new ParsedTransactions(),
): Promise<Record<string, Value>> {
  const exposed = definition.policyParams ?? {};
  const keywords: Record<string, Value> = {
    activity: {
      type: definition.type,
      kind: activityKind(definition.type),
      resource: definition.resource,
      action: definition.action,
      params: Object.fromEntries(
        Object.entries(exposed).flatMap(([name, key]) => {
          const value = params[key] ?? OMITTED_PARAMS[name];
          return value === undefined ? [] : [[name, toPolicyValue(value)]];
        }),
      ),
    },
  };
  const target = definition.policyTarget;
  if (!target) return keywords;
  if ("wallet" in target) {
    const wallet = await walletById(tx, organizationId, params[target.wallet]);
    if (wallet) Object.assign(keywords, { wallet, wallets: [wallet] });
  } else if ("wallets" in target) {
    const ids = params[target.wallets];
    if (Array.isArray(ids)) {
      const wallets = [];
      for (const id of ids) wallets.push(await walletById(tx, organizationId, id));
      keywords.wallets = wallets.filter((w): w is Value => w !== undefined);
    }
  } else if ("privateKey" in target) {
    const id = params[target.privateKey];
    const key = typeof id === "string" ? await privateKeyValue(tx, organizationId, id) : undefined;
    if (key) keywords.private_key = key;
  } else if ("signer" in target && typeof params[target.signer] === "string") {
    const signer = await signingTarget(tx, organizationId, params[target.signer] as string);
    Object.assign(keywords, signer.keywords);
    if (target.signs === "transaction") Object.assign(keywords, await transactionKeywords(tx, organizationId, params, signer, parsed));
    if (target.signs === "raw-payload") {
      if (params.encoding === "PAYLOAD_ENCODING_EIP712") assign(keywords, "eth", "eip_712", eip712TypedData(String(params.payload)));
      if (params.encoding === "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION")
        assign(keywords, "eth", "eip_7702_authorization", eip7702Authorization(String(params.payload)));
    }
  }
  return keywords;
}

/**
 * The condition keywords of an activity that acts on several secrets: one set per secret, each with its
 * `secret` (its static properties: the stored ones for an export, the declared ones for an import). A policy
 * decides over all of them (decision.ts): an allow applies when it holds for every secret, a deny when it holds
 * for any. Every other activity has one set.
 */
export async function conditionKeywordSets(
  tx: Queryable,
  organizationId: string,
  definition: ActivityDefinition,
  params: Params,
  parsed: ParsedTransactions = new ParsedTransactions(),
): Promise<Record<string, Value>[]> {
  const keywords = await conditionKeywords(tx, organizationId, definition, params, parsed);
  const secrets = await secretValues(tx, organizationId, definition.policyTarget, params);
  return secrets.length === 0 ? [keywords] : secrets.map((secret) => ({ ...keywords, secret }));
}

async function secretValues(tx: Queryable, organizationId: string, target: PolicyTarget | undefined, params: Params): Promise<Value[]> {
  if (!target || !("secrets" in target)) return [];
  const list = params[target.secrets];
  // Items are objects with a secretId (export_secrets) or the ids themselves (delete_secrets).
  const items = Array.isArray(list) ? (list as Array<Record<string, unknown>>) : [];
  const asMap = (properties: unknown): Value =>
    Object.fromEntries(
      (Array.isArray(properties) ? (properties as Array<{ key: string; value: string }>) : []).map((p) => [p.key, p.value]),
    );
  if (target.properties === "declared") return items.map((item) => ({ static_properties: asMap(item.staticProperties) }));
  const ids = items.map((item) => (typeof item === "string" ? item : item.secretId)).filter((id): id is string => typeof id === "string");
  const rows = await tx.query<{ id: string; static_properties: unknown }>(
    "SELECT id, static_properties FROM secrets WHERE organization_id = $1 AND id = ANY($2::text[])",
    [organizationId, ids],
  );
  const byId = new Map(rows.map((row) => [row.id, row.static_properties]));
  return ids.flatMap((id) => (byId.has(id) ? [{ static_properties: asMap(byId.get(id)) }] : []));
}

function assign(keywords: Record<string, Value>, family: string, field: string, value: Value | undefined): void {
  if (value === undefined) return;
  keywords[family] = { ...((keywords[family] as Record<string, Value> | undefined) ?? {}), [field]: value };
}

async function transactionKeywords(
  tx: Queryable,
  organizationId: string,
  params: Params,
  target: { address?: string; addressFormat?: string },
  parsed: ParsedTransactions,
): Promise<Record<string, Value>> {
  const unsigned = String(params.unsignedTransaction ?? "");
  const keywords: Record<string, Value> = {};
  switch (params.type) {
    case "TRANSACTION_TYPE_ETHEREUM": {
      const decoded = parsedOrUndefined(() => parsed.ethereum(unsigned));
      if (!decoded) break;
      const abi = await uploadedAbi(tx, organizationId, decoded.to);
      assign(keywords, "eth", "tx", ethereumTransaction(decoded, target.address, abi));
      break;
    }
    case "TRANSACTION_TYPE_SOLANA":
      assign(keywords, "solana", "tx", solanaTransaction(unsigned));
      break;
    case "TRANSACTION_TYPE_TRON":
      assign(keywords, "tron", "tx", tronTransaction(unsigned));
      break;
    case "TRANSACTION_TYPE_BITCOIN": {
      const network = /BITCOIN_(MAINNET|TESTNET|SIGNET|REGTEST)_/.exec(target.addressFormat ?? "")?.[1] as
        keyof typeof BITCOIN_NETWORKS | undefined;
      const psbt = parsedOrUndefined(() => parsed.psbt(unsigned));
      if (psbt) assign(keywords, "bitcoin", "tx", bitcoinTransaction(psbt, BITCOIN_NETWORKS[network ?? "MAINNET"]));
      break;
    }
  }
  return keywords;
}

/** A transaction that does not parse has no keywords (a policy reading them errors); signing refuses it. */
function parsedOrUndefined<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}
