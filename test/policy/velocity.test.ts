import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from "@solana/web3.js";
import { encodeFunctionData, erc20Abi, serializeTransaction } from "viem";
import { describe, expect, it } from "vitest";
import { ParsedTransactions } from "../../src/crypto/signing/parsed-transactions.js";
import { signedTransactionTransfers } from "../../src/policy/velocity/asset-transfers.js";
import { compileControl, contribution } from "../../src/policy/velocity/control.js";
import { formatScaled, parseThreshold, scaleBaseUnits } from "../../src/policy/velocity/decimal.js";

const TOKEN_PROGRAM = new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const USDC_MINT = "EPjFWdd5AufqSSqeM2qJ1y8iT5GQUjsgNtxvbXbKhrAJ";
const SOLANA_MAINNET = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

describe("velocity control amounts", () => {
  it("parses thresholds exactly: up to 38 digits, 18 of them fractional, never through floating point", () => {
    expect(parseThreshold("1")).toBe(10n ** 18n);
    expect(parseThreshold("0.000000000000000001")).toBe(1n);
    expect(parseThreshold("100.5")).toBe(1005n * 10n ** 17n);
    expect(parseThreshold("99999999999999999999.999999999999999999")).toBe(10n ** 38n - 1n);
    expect((parseThreshold("0.1") as bigint) + (parseThreshold("0.2") as bigint)).toBe(parseThreshold("0.3"));
    for (const bad of ["-1", "1e3", ".5", "1.", "0x10", " 1", "1.0000000000000000001", "1".repeat(39)])
      expect(typeof parseThreshold(bad), bad).toBe("string");
    expect(formatScaled(parseThreshold("0012.3400") as bigint)).toBe("12.34");
    expect(formatScaled(0n)).toBe("0");
  });

  it("scales base units by the asset's decimals, rounding up only beyond 18", () => {
    expect(scaleBaseUnits(1_500_000n, 6)).toBe(15n * 10n ** 17n);
    expect(scaleBaseUnits(1n, 18)).toBe(1n);
    expect(scaleBaseUnits(1n, 0)).toBe(10n ** 18n);
    expect(scaleBaseUnits(1n, 20)).toBe(1n); // 10^-20 rounds up to 10^-18: a cap is never undercounted
    expect(scaleBaseUnits(100n, 20)).toBe(1n);
    expect(scaleBaseUnits(101n, 20)).toBe(2n);
  });
});

describe("what a signed transaction moves (the hook sign_transaction declares)", () => {
  const parsed = new ParsedTransactions();
  const eth = (fields: Record<string, unknown>) =>
    serializeTransaction({
      type: "eip1559",
      chainId: 8453,
      nonce: 0,
      gas: 90000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
      ...fields,
    } as never);

  it("reads the native value and ERC-20 transfer / transferFrom amounts of an Ethereum transaction, on its chain", () => {
    const token = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [token, 2_500_000n] });
    expect(signedTransactionTransfers("TRANSACTION_TYPE_ETHEREUM", eth({ to: token, value: 7n, data: transfer }), parsed)).toEqual([
      { namespace: "eip155", chain: "8453", kind: "native", token: "", amount: 7n },
      { namespace: "eip155", chain: "8453", kind: "token", token: token.toLowerCase(), amount: 2_500_000n },
    ]);
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [token, 5n] });
    expect(signedTransactionTransfers("TRANSACTION_TYPE_ETHEREUM", eth({ to: token, value: 0n, data: approve }), parsed)).toEqual([]);
    // A legacy transaction without a chain id may be broadcast on any chain.
    const legacy = serializeTransaction({ type: "legacy", nonce: 0, gas: 21000n, gasPrice: 1n, to: token, value: 3n });
    expect(signedTransactionTransfers("TRANSACTION_TYPE_ETHEREUM", legacy, parsed)).toEqual([
      { namespace: "eip155", chain: undefined, kind: "native", token: "", amount: 3n },
    ]);
  });

  it("reads SOL transfers and SPL TransferChecked (with its mint) and Transfer (without) from a Solana transaction", () => {
    const payer = Keypair.generate().publicKey;
    const account = () => ({ pubkey: Keypair.generate().publicKey, isSigner: false, isWritable: true });
    const amount = Buffer.alloc(8);
    amount.writeBigUInt64LE(1_250_000n);
    const tx = new Transaction({ feePayer: payer, recentBlockhash: Keypair.generate().publicKey.toBase58() }).add(
      SystemProgram.transfer({ fromPubkey: payer, toPubkey: Keypair.generate().publicKey, lamports: 5_000_000_000n }),
      new TransactionInstruction({
        programId: TOKEN_PROGRAM,
        keys: [
          account(),
          { pubkey: new PublicKey(USDC_MINT), isSigner: false, isWritable: false },
          account(),
          { pubkey: payer, isSigner: true, isWritable: false },
        ],
        data: Buffer.concat([Buffer.from([12]), amount, Buffer.from([6])]),
      }),
      new TransactionInstruction({
        programId: TOKEN_PROGRAM,
        keys: [account(), account(), { pubkey: payer, isSigner: true, isWritable: false }],
        data: Buffer.concat([Buffer.from([3]), amount]),
      }),
    );
    const hex = tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex");
    const transfers = signedTransactionTransfers("TRANSACTION_TYPE_SOLANA", hex, parsed);
    expect(transfers).toEqual([
      { namespace: "solana", kind: "native", token: "", amount: 5_000_000_000n },
      { namespace: "solana", kind: "token", token: USDC_MINT, amount: 1_250_000n },
      { namespace: "solana", kind: "token", token: undefined, amount: 1_250_000n },
    ]);
    const control = compileControl({
      id: "c",
      identifier: "usdc",
      dataSource: { chainAssetTransfer: { definition: [{ caip19: `solana:${SOLANA_MAINNET}/token:${USDC_MINT}`, decimals: "6" }] } },
      aggregation: {
        method: "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM",
        operator: "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN",
        threshold: "10",
        window: { infinite: {} },
        groupBy: { organization: {} },
      },
    });
    if ("why" in control) throw new Error(control.why);
    // The mint-less Transfer may be of the listed token: it counts too (2 × 1.25 USDC); SOL is not listed.
    expect(contribution(control, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", transfers)).toBe(25n * 10n ** 17n);
  });
});
