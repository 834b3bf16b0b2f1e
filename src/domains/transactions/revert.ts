import type { Abi, Hex } from "viem";
import { viem } from "../../crypto/chain-libraries.js";
import type { RevertChainEntry } from "../../records/send-transaction.js";

const ERROR_STRING = "0x08c379a0";
const PANIC = "0x4e487b71";

/** What a Solidity panic code means (https://docs.soliditylang.org/en/latest/control-structures.html#panic-via-assert-and-error-via-require). */
const PANIC_REASONS: Record<number, string> = {
  0x00: "generic compiler panic",
  0x01: "assertion failed",
  0x11: "arithmetic overflow or underflow",
  0x12: "division or modulo by zero",
  0x21: "invalid enum value",
  0x22: "invalid storage byte array",
  0x31: "pop on an empty array",
  0x32: "array index out of bounds",
  0x41: "out of memory",
  0x51: "call to an invalid internal function",
};

/**
 * One revert's data as a revert-chain entry: Error(string) and Panic(uint256) as native errors, empty data as a
 * plain "execution reverted", a custom error decoded when the organization uploaded the contract's ABI
 * (create_smart_contract_interface), and anything else as unknown with its selector and raw data.
 */
export function revertEntry(data: string | undefined, address: string | undefined, abi?: Abi): RevertChainEntry {
  const at = address ? { address } : {};
  const hex = (data ?? "0x").toLowerCase() as Hex;
  if (hex === "0x" || hex.length < 10)
    return { ...at, errorType: "native", displayMessage: "execution reverted", native: { nativeType: "execution_reverted" } };
  const selector = hex.slice(0, 10);
  if (selector === ERROR_STRING || selector === PANIC) {
    try {
      const decoded = viem().decodeErrorResult({ data: hex });
      if (decoded.errorName === "Error") {
        const message = String(decoded.args[0]);
        return { ...at, errorType: "native", displayMessage: message, native: { nativeType: "error_string", message } };
      }
      const code = BigInt(decoded.args[0] as bigint);
      const reason = PANIC_REASONS[Number(code)] ?? "unknown panic";
      return {
        ...at,
        errorType: "native",
        displayMessage: `panic 0x${code.toString(16)}: ${reason}`,
        native: { nativeType: "panic", panicCode: code.toString() },
      };
    } catch {
      // malformed: reported as unknown below
    }
  }
  if (abi) {
    try {
      const decoded = viem().decodeErrorResult({ abi, data: hex });
      const inputs = (decoded.abiItem as { inputs?: readonly { name?: string }[] }).inputs ?? [];
      const params = Object.fromEntries(
        (decoded.args ?? []).map((value, i) => [inputs[i]?.name || String(i), typeof value === "bigint" ? value.toString() : value]),
      );
      return {
        ...at,
        errorType: "custom",
        displayMessage: `${decoded.errorName}(${Object.values(params).map(String).join(", ")})`,
        custom: { errorName: decoded.errorName, paramsJson: JSON.stringify(params) },
      };
    } catch {
      // not one of the ABI's errors
    }
  }
  return { ...at, errorType: "unknown", displayMessage: `reverted with custom error ${selector}`, unknown: { selector, data: hex } };
}

/** A call frame as debug_traceTransaction's callTracer answers it. */
export interface CallFrame {
  to?: string;
  output?: string;
  error?: string;
  calls?: CallFrame[];
}

/**
 * The revert chain of a traced transaction, outermost first: each frame that failed, following the failed
 * call inside it down to the innermost. `abiOf` gives the uploaded ABI of a contract address, if any.
 */
export function revertChainOfTrace(root: CallFrame, abiOf: (address: string) => Abi | undefined): RevertChainEntry[] {
  const chain: RevertChainEntry[] = [];
  let frame: CallFrame | undefined = root;
  while (frame?.error) {
    chain.push(revertEntry(frame.output, frame.to, frame.to ? abiOf(frame.to.toLowerCase()) : undefined));
    frame = frame.calls?.find((call) => call.error);
  }
  return chain;
}
