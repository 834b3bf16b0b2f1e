/** Static types of the policy language. `dynamic` is for values whose shape is data-driven (params, ABI arguments, EIP-712 values). */
export type Type =
  | { kind: "bool" }
  | { kind: "int" }
  | { kind: "string" }
  | { kind: "timestamp" }
  | { kind: "dynamic" }
  | { kind: "list"; item: Type }
  | { kind: "map"; value: Type }
  | { kind: "struct"; name: string; fields: Record<string, Type> };

export const BOOL: Type = { kind: "bool" };
export const INT: Type = { kind: "int" };
export const STRING: Type = { kind: "string" };
export const TIMESTAMP: Type = { kind: "timestamp" };
export const DYNAMIC: Type = { kind: "dynamic" };
export const list = (item: Type): Type => ({ kind: "list", item });
export const map = (value: Type): Type => ({ kind: "map", value });
export const struct = (name: string, fields: Record<string, Type>): Type => ({ kind: "struct", name, fields });

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

const User = struct("User", { id: STRING, tags: list(STRING), email: STRING, alias: STRING });
const Credential = struct("Credential", { id: STRING, user_id: STRING, type: STRING, credential_id: STRING, public_key: STRING });
const Activity = struct("Activity", { type: STRING, kind: STRING, resource: STRING, action: STRING, params: DYNAMIC });
const Wallet = struct("Wallet", { id: STRING, imported: BOOL, exported: BOOL, label: STRING });
const WalletAccount = struct("WalletAccount", { address: STRING });
const PrivateKey = struct("PrivateKey", { id: STRING, tags: list(STRING), imported: BOOL, exported: BOOL, label: STRING });

const EthereumTransaction = struct("EthereumTransaction", {
  from: STRING,
  to: STRING,
  data: STRING,
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
  function_signature: STRING,
  contract_call_args: map(DYNAMIC),
});
const Eip712TypedData = struct("Eip712TypedData", {
  primary_type: STRING,
  domain: struct("Eip712Domain", { name: STRING, version: STRING, chain_id: INT, verifying_contract: STRING }),
  message: map(DYNAMIC),
});
const Eip7702Authorization = struct("Eip7702Authorization", { address: STRING, chain_id: INT, nonce: INT });

const AddressTableLookup = struct("AddressTableLookup", { address_table_key: STRING, writable_indexes: list(INT), readonly_indexes: list(INT) });
const SolanaTransaction = struct("SolanaTransaction", {
  account_keys: list(STRING),
  program_keys: list(STRING),
  instructions: list(
    struct("Instruction", {
      program_key: STRING,
      accounts: list(struct("Account", { account_key: STRING, signer: BOOL, writable: BOOL })),
      instruction_data_hex: STRING,
      address_table_lookups: list(AddressTableLookup),
      parsed_instruction_data: struct("SolanaParsedInstructionData", {
        instruction_name: STRING,
        discriminator: STRING,
        named_accounts: map(STRING),
        program_call_args: map(DYNAMIC),
      }),
    }),
  ),
  transfers: list(struct("Transfer", { from: STRING, to: STRING, amount: INT })),
  recent_blockhash: STRING,
  spl_transfers: list(struct("SPLTransfer", { from: STRING, to: STRING, amount: INT, owner: STRING, signers: list(STRING), token_mint: STRING })),
  address_table_lookups: list(AddressTableLookup),
});

const TronKey = struct("TronKey", { address: STRING, weight: INT });
const TronPermission = struct("TronPermission", {
  type: STRING,
  id: INT,
  permission_name: STRING,
  threshold: INT,
  parent_id: INT,
  operations: STRING,
  keys: list(TronKey),
});
const TronTransaction = struct("TronTransaction", {
  ref_block_bytes: STRING,
  ref_block_hash: STRING,
  expiration: INT,
  timestamp: INT,
  data: STRING,
  fee_limit: INT,
  contract: list(
    struct("TronContract", {
      type: STRING,
      permission_id: INT,
      owner_address: STRING,
      to_address: STRING,
      amount: INT,
      contract_address: STRING,
      call_value: INT,
      data: STRING,
      call_token_value: INT,
      token_id: INT,
      resource: STRING,
      balance: INT,
      receiver_address: STRING,
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
  inputs: list(struct("BitcoinTxInput", { tx_id: STRING, vout: INT, sequence: INT })),
  outputs: list(struct("BitcoinTxOutput", { value: INT, script_pubkey: STRING, address: STRING, address_type: STRING })),
  locktime: struct("BitcoinTxLocktime", { amount: INT, type: STRING }),
  fee: INT,
});

const TempoTransaction = struct("TempoTransaction", {
  chain_id: INT,
  from: STRING,
  nonce: INT,
  gas_limit: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  fee_token: STRING,
  valid_before: INT,
  valid_after: INT,
  calls: list(struct("TempoCall", { to: STRING, input: STRING, function_signature: STRING })),
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
  },
  time: { time: struct("time", { now: TIMESTAMP }) },
};
