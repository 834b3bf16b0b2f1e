import type { Abi } from "viem";
import { viem } from "../../crypto/chain-libraries.js";
import type { EthereumTransaction } from "../../crypto/signing/ethereum-transaction.js";
import type { Value } from "../language/index.js";

const TYPE_NAMES: Record<string, string> = { legacy: "LEGACY", eip2930: "TYPE_1", eip1559: "TYPE_2", eip4844: "TYPE_3", eip7702: "TYPE_4" };

/** A JSON-ish value as the policy language sees it: numbers become ints, hex strings stay as they are. */
export function toPolicyValue(value: unknown): Value {
  if (typeof value === "bigint" || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : String(value);
  if (Array.isArray(value)) return value.map(toPolicyValue);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPolicyValue(v)]));
  return "";
}

/**
 * eth.tx from an unsigned transaction, decoded as it is signed (an empty RLP integer is 0); the ABI, when one
 * is uploaded for `to`, names the call and its arguments.
 */
export function ethereumTransaction(tx: EthereumTransaction, from: string | undefined, abi: Abi | undefined): Value {
  const data = tx.data;
  const record: Record<string, Value> = {
    from: (from ?? "").toLowerCase(),
    to: tx.to ?? "",
    data,
    value: tx.value,
    gas: tx.gas,
    gas_price: tx.gasPrice ?? tx.maxFeePerGas ?? 0n,
    chain_id: tx.chainId ?? 0n,
    nonce: tx.nonce,
    max_fee_per_gas: tx.maxFeePerGas ?? 0n,
    max_priority_fee_per_gas: tx.maxPriorityFeePerGas ?? 0n,
    max_fee_per_blob_gas: tx.maxFeePerBlobGas ?? 0n,
    type: TYPE_NAMES[tx.type] ?? "LEGACY",
  };
  if (abi && data.length >= 10) {
    try {
      const decoded = viem().decodeFunctionData({ abi, data: data as `0x${string}` });
      const item = abi.find(
        (entry) =>
          entry.type === "function" && entry.name === decoded.functionName && viem().toFunctionSelector(entry) === data.slice(0, 10),
      );
      const inputs = item && "inputs" in item ? item.inputs : [];
      record.function_name = decoded.functionName;
      record.function_signature = data.slice(0, 10);
      record.contract_call_args = Object.fromEntries(
        (decoded.args ?? []).map((arg, i) => [inputs[i]?.name || String(i), toPolicyValue(lowercaseHex(arg))]),
      );
    } catch {
      // calldata that the uploaded interface does not describe: the ABI fields stay absent
    }
  }
  return record;
}

function lowercaseHex(value: unknown): unknown {
  if (typeof value === "string" && /^0x[0-9a-fA-F]*$/.test(value)) return value.toLowerCase();
  if (Array.isArray(value)) return value.map(lowercaseHex);
  if (value && typeof value === "object" && typeof value !== "bigint")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lowercaseHex(v)]));
  return value;
}

/** eth.eip_712 from typed data JSON: hex strings normalized to lowercase, as the documentation says. */
export function eip712TypedData(payload: string): Value | undefined {
  try {
    const typed = JSON.parse(payload) as { primaryType?: string; domain?: Record<string, unknown>; message?: Record<string, unknown> };
    const domain = typed.domain ?? {};
    return {
      primary_type: typed.primaryType ?? "",
      domain: toPolicyValue(
        lowercaseHex({
          name: domain.name ?? "",
          version: domain.version ?? "",
          chain_id: BigInt(String(domain.chainId ?? 0)),
          verifying_contract: domain.verifyingContract ?? "",
        }),
      ),
      message: toPolicyValue(lowercaseHex(typed.message ?? {})),
    };
  } catch {
    return undefined;
  }
}

/** eth.eip_7702_authorization from an authorization JSON {chainId, address, nonce}. */
export function eip7702Authorization(payload: string): Value | undefined {
  try {
    const authorization = JSON.parse(payload) as { chainId?: number; address?: string; contractAddress?: string; nonce?: number };
    return {
      address: String(authorization.address ?? authorization.contractAddress ?? "").toLowerCase(),
      chain_id: BigInt(authorization.chainId ?? 0),
      nonce: BigInt(authorization.nonce ?? 0),
    };
  } catch {
    return undefined;
  }
}
