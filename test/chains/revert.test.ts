import { encodeErrorResult, type Abi } from "viem";
import { describe, expect, it } from "vitest";
import { revertChainOfTrace, revertEntry } from "../../src/domains/transactions/revert.js";

const AT = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const STANDARD = [
  { type: "error", name: "Error", inputs: [{ type: "string", name: "message" }] },
  { type: "error", name: "Panic", inputs: [{ type: "uint256", name: "code" }] },
] as const;
const CUSTOM: Abi = [
  {
    type: "error",
    name: "InsufficientBalance",
    inputs: [
      { type: "uint256", name: "available" },
      { type: "uint256", name: "required" },
    ],
  },
];

describe("revert data decoded into revert-chain entries (viem's encoder as the oracle)", () => {
  it("Error(string), Panic(uint256) and an empty revert are native errors", () => {
    const message = encodeErrorResult({ abi: STANDARD, errorName: "Error", args: ["insufficient balance for transfer"] });
    expect(revertEntry(message, AT)).toEqual({
      address: AT,
      errorType: "native",
      displayMessage: "insufficient balance for transfer",
      native: { nativeType: "error_string", message: "insufficient balance for transfer" },
    });
    const panic = encodeErrorResult({ abi: STANDARD, errorName: "Panic", args: [0x11n] });
    expect(revertEntry(panic, AT)).toEqual({
      address: AT,
      errorType: "native",
      displayMessage: "panic 0x11: arithmetic overflow or underflow",
      native: { nativeType: "panic", panicCode: "17" },
    });
    expect(revertEntry("0x", AT)).toMatchObject({ errorType: "native", native: { nativeType: "execution_reverted" } });
  });

  it("a custom error is decoded with the contract's uploaded ABI, and is unknown (selector and data) without it", () => {
    const data = encodeErrorResult({ abi: CUSTOM, errorName: "InsufficientBalance", args: [5n, 9n] });
    expect(revertEntry(data, AT, CUSTOM)).toEqual({
      address: AT,
      errorType: "custom",
      displayMessage: "InsufficientBalance(5, 9)",
      custom: { errorName: "InsufficientBalance", paramsJson: '{"available":"5","required":"9"}' },
    });
    expect(revertEntry(data, AT)).toEqual({
      address: AT,
      errorType: "unknown",
      displayMessage: `reverted with custom error ${data.slice(0, 10)}`,
      unknown: { selector: data.slice(0, 10), data },
    });
  });

  it("a call trace gives the chain outermost first, following the failed call down", () => {
    const inner = encodeErrorResult({ abi: STANDARD, errorName: "Error", args: ["paused"] });
    const chain = revertChainOfTrace(
      {
        to: "0x00000000000000000000000000000000000000aa",
        error: "execution reverted",
        output: "0x",
        calls: [
          { to: "0x00000000000000000000000000000000000000bb", output: "0x" },
          { to: "0x00000000000000000000000000000000000000cc", error: "execution reverted", output: inner },
        ],
      },
      () => undefined,
    );
    expect(chain.map((e) => [e.address, e.displayMessage])).toEqual([
      ["0x00000000000000000000000000000000000000aa", "execution reverted"],
      ["0x00000000000000000000000000000000000000cc", "paused"],
    ]);
  });
});
