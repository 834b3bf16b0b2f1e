import type { Canon } from "./canonical.js";

/**
 * Static types of the policy language. `dynamic` is for values whose shape is data-driven (ABI arguments,
 * EIP-712 values). A string with a `canon` has several spellings and is compared canonically (canonical.ts).
 * An `open` struct has known fields and may hold others (dynamic).
 */
export type Type =
  | { kind: "bool" }
  | { kind: "int" }
  | { kind: "string"; canon?: Canon }
  | { kind: "timestamp" }
  | { kind: "dynamic" }
  | { kind: "list"; item: Type }
  | { kind: "map"; value: Type }
  | { kind: "struct"; name: string; fields: Record<string, Type>; open?: boolean };

export const BOOL: Type = { kind: "bool" };
export const INT: Type = { kind: "int" };
export const STRING: Type = { kind: "string" };
export const TIMESTAMP: Type = { kind: "timestamp" };
export const DYNAMIC: Type = { kind: "dynamic" };
/** Strings with several spellings of one value (see canonical.ts). */
export const HEX: Type = { kind: "string", canon: "hex" };
export const PUBLIC_KEY: Type = { kind: "string", canon: "public_key" };
export const ADDRESS: Type = { kind: "string", canon: "address" };
export const EMAIL: Type = { kind: "string", canon: "email" };
export const list = (item: Type): Type => ({ kind: "list", item });
export const map = (value: Type): Type => ({ kind: "map", value });
export const struct = (name: string, fields: Record<string, Type>, open = false): Type => ({
  kind: "struct",
  name,
  fields,
  ...(open ? { open } : {}),
});

export function typeName(type: Type): string {
  switch (type.kind) {
    case "list":
      return `list<${typeName(type.item)}>`;
    case "map":
      return `map<string, ${typeName(type.value)}>`;
    case "struct":
      return type.name;
    default:
      return type.kind;
  }
}

const User = struct("User", { id: STRING, tags: list(STRING), email: EMAIL, alias: STRING });
const Credential = struct("Credential", { id: STRING, user_id: STRING, type: STRING, credential_id: STRING, public_key: PUBLIC_KEY });
/** The documented activity.params (the definitions' policyParams); others an activity may carry are dynamic. */
const ActivityParams = struct(
  "ActivityParams",
  {
    hash_function: STRING,
    encoding: STRING,
    type: STRING,
    user_ids: list(STRING),
    user_id: STRING,
    api_key_ids: list(STRING),
    target_public_key: PUBLIC_KEY,
    wallet_id: STRING,
    session_profile_id: STRING,
  },
  true,
);
const Activity = struct("Activity", { type: STRING, kind: STRING, resource: STRING, action: STRING, params: ActivityParams });
const Wallet = struct("Wallet", { id: STRING, imported: BOOL, exported: BOOL, label: STRING });
const WalletAccount = struct("WalletAccount", { address: ADDRESS });
const PrivateKey = struct("PrivateKey", { id: STRING, tags: list(STRING), imported: BOOL, exported: BOOL, label: STRING });

const EthereumTransaction = struct("EthereumTransaction", {
  from: ADDRESS,
  to: ADDRESS,
  data: HEX,
  value: INT,
  gas: INT,
  gas_price: INT,
  chain_id: INT,
  nonce: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  max_fee_per_blob_gas: INT,
  type: STRING,
  function_name: STRING,
  function_signature: HEX,
  contract_call_args: map(DYNAMIC),
});
const Eip712TypedData = struct("Eip712TypedData", {
  primary_type: STRING,
  domain: struct("Eip712Domain", { name: STRING, version: STRING, chain_id: INT, verifying_contract: ADDRESS }),
  message: map(DYNAMIC),
});
const Eip7702Authorization = struct("Eip7702Authorization", { address: ADDRESS, chain_id: INT, nonce: INT });

const AddressTableLookup = struct("AddressTableLookup", {
  address_table_key: ADDRESS,
  writable_indexes: list(INT),
  readonly_indexes: list(INT),
});
const SolanaTransaction = struct("SolanaTransaction", {
  account_keys: list(ADDRESS),
  program_keys: list(ADDRESS),
  instructions: list(
    struct("Instruction", {
      program_key: ADDRESS,
      accounts: list(struct("Account", { account_key: ADDRESS, signer: BOOL, writable: BOOL })),
      instruction_data_hex: HEX,
      address_table_lookups: list(AddressTableLookup),
      parsed_instruction_data: struct("SolanaParsedInstructionData", {
        instruction_name: STRING,
        discriminator: HEX,
        named_accounts: map(ADDRESS),
        program_call_args: map(DYNAMIC),
      }),
    }),
  ),
  transfers: list(struct("Transfer", { from: ADDRESS, to: ADDRESS, amount: INT })),
  recent_blockhash: STRING,
  spl_transfers: list(
    struct("SPLTransfer", { from: ADDRESS, to: ADDRESS, amount: INT, owner: ADDRESS, signers: list(ADDRESS), token_mint: ADDRESS }),
  ),
  address_table_lookups: list(AddressTableLookup),
});

const TronKey = struct("TronKey", { address: ADDRESS, weight: INT });
const TronPermission = struct("TronPermission", {
  type: STRING,
  id: INT,
  permission_name: STRING,
  threshold: INT,
  parent_id: INT,
  operations: HEX,
  keys: list(TronKey),
});
const TronTransaction = struct("TronTransaction", {
  ref_block_bytes: HEX,
  ref_block_hash: HEX,
  expiration: INT,
  timestamp: INT,
  data: STRING,
  fee_limit: INT,
  contract: list(
    struct("TronContract", {
      type: STRING,
      permission_id: INT,
      owner_address: ADDRESS,
      to_address: ADDRESS,
      amount: INT,
      contract_address: ADDRESS,
      call_value: INT,
      data: HEX,
      call_token_value: INT,
      token_id: INT,
      resource: STRING,
      balance: INT,
      receiver_address: ADDRESS,
      lock: BOOL,
      lock_period: INT,
      frozen_balance: INT,
      unfreeze_balance: INT,
      owner: TronPermission,
      witness: TronPermission,
      actives: list(TronPermission),
    }),
  ),
});

const BitcoinTransaction = struct("BitcoinTransaction", {
  version: STRING,
  inputs: list(struct("BitcoinTxInput", { tx_id: HEX, vout: INT, sequence: INT })),
  outputs: list(struct("BitcoinTxOutput", { value: INT, script_pubkey: HEX, address: ADDRESS, address_type: STRING })),
  locktime: struct("BitcoinTxLocktime", { amount: INT, type: STRING }),
  fee: INT,
});

const TempoTransaction = struct("TempoTransaction", {
  chain_id: INT,
  from: ADDRESS,
  nonce: INT,
  gas_limit: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  fee_token: ADDRESS,
  valid_before: INT,
  valid_after: INT,
  calls: list(struct("TempoCall", { to: ADDRESS, input: HEX, function_signature: HEX })),
});

export type PolicyField = "consensus" | "condition" | "time";

/** The keywords each field may use, with their types. */
export const KEYWORDS: Record<PolicyField, Record<string, Type>> = {
  consensus: { approvers: list(User), credentials: list(Credential) },
  condition: {
    activity: Activity,
    eth: struct("eth", { tx: EthereumTransaction, eip_712: Eip712TypedData, eip_7702_authorization: Eip7702Authorization }),
    solana: struct("solana", { tx: SolanaTransaction }),
    tron: struct("tron", { tx: TronTransaction }),
    bitcoin: struct("bitcoin", { tx: BitcoinTransaction }),
    tempo: struct("tempo", { tx: TempoTransaction }),
    wallet: Wallet,
    wallets: list(Wallet),
    wallet_account: WalletAccount,
    private_key: PrivateKey,
    secret: struct("Secret", { static_properties: map(STRING) }),
    /** Velocity controls by identifier: whether the aggregate with this activity satisfies the control's comparison. */
    controls: map(BOOL),
  },
  time: { time: struct("time", { now: TIMESTAMP }) },
};
