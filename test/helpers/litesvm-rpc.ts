import { createServer, type Server } from "node:http";
import { getBase58Decoder, getBase58Encoder, getTransactionDecoder, type Address } from "@solana/kit";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";

/**
 * A Solana runtime (litesvm, in process) behind the few JSON-RPC methods Strongroom calls — getLatestBlockhash,
 * sendTransaction (with preflight: a failing transaction is refused, as a validator's simulation refuses it),
 * getSignatureStatuses, isBlockhashValid, getBalance, getTokenAccountsByOwner (jsonParsed, decoded from the SPL
 * Token program's accounts as they stand in the runtime). Each accepted transaction gets the next slot and is
 * reported confirmed.
 */
export interface SolanaNode {
  url: string;
  svm: LiteSVM;
  /** Makes the current blockhash stale (litesvm's expireBlockhash), as time passing on a cluster would. */
  expireBlockhash(): void;
  /** Writes an SPL Token mint (no authority) with `decimals` into the runtime. */
  createMint(mint: string, decimals: number): void;
  /** Writes an SPL token account of `mint` owned by `owner` holding `amount` into the runtime. */
  createTokenAccount(account: string, mint: string, owner: string, amount: bigint): void;
  close(): Promise<void>;
}

export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
/** An SPL Token account's size, and where its mint, owner and amount are (the program's Account layout). */
const TOKEN_ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;

/** A JSON-RPC error answer: its code, message and data. */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export async function startSolanaNode(): Promise<SolanaNode> {
  const svm = new LiteSVM();
  const seen = new Map<string, { slot: number; err: unknown }>();
  const validBlockhashes = new Set<string>([svm.latestBlockhash()]);
  let slot = 1;
  const decoder = getTransactionDecoder();
  const base58 = getBase58Decoder();
  const base58Encoder = getBase58Encoder();
  const write = (address: string, data: Buffer) =>
    svm.setAccount({
      address: address as Address,
      data,
      executable: false,
      lamports: svm.minimumBalanceForRentExemption(BigInt(data.length)) as never,
      programAddress: TOKEN_PROGRAM as Address,
      space: BigInt(data.length),
    });
  const handlers: Record<string, (params: unknown[]) => unknown> = {
    getLatestBlockhash: () => ({ context: { slot }, value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: slot + 150 } }),
    getBlockTime: () => Number(svm.getClock().unixTimestamp),
    isBlockhashValid: ([hash]) => ({ context: { slot }, value: validBlockhashes.has(String(hash)) }),
    getBalance: ([address]) => ({ context: { slot }, value: Number(svm.getBalance(address as Address) ?? 0n) }),
    getTokenAccountsByOwner: ([owner, filter]) => {
      const { mint } = filter as { mint?: string; programId?: string };
      const accounts = svm.getProgramAccounts(TOKEN_PROGRAM as Address).filter((a) => a.data.length === TOKEN_ACCOUNT_SIZE);
      const value = accounts
        .map((account) => {
          const data = Buffer.from(account.data);
          return {
            account,
            mint: base58.decode(data.subarray(0, 32)),
            owner: base58.decode(data.subarray(32, 64)),
            amount: data.readBigUInt64LE(64),
          };
        })
        .filter((a) => a.owner === owner && (mint === undefined || a.mint === mint))
        .map(({ account, mint, owner, amount }) => {
          const mintAccount = svm.getAccount(mint as Address);
          const decimals = mintAccount.exists ? Buffer.from(mintAccount.data).readUInt8(44) : 0;
          const ui = Number(amount) / 10 ** decimals;
          return {
            pubkey: account.address,
            account: {
              data: {
                program: "spl-token",
                parsed: {
                  type: "account",
                  info: {
                    mint,
                    owner,
                    state: "initialized",
                    isNative: false,
                    tokenAmount: { amount: amount.toString(), decimals, uiAmount: ui, uiAmountString: String(ui) },
                  },
                },
                space: TOKEN_ACCOUNT_SIZE,
              },
              executable: false,
              lamports: Number(account.lamports),
              owner: TOKEN_PROGRAM,
              rentEpoch: 0,
              space: TOKEN_ACCOUNT_SIZE,
            },
          };
        });
      return { context: { slot }, value };
    },
    getSignatureStatuses: ([signatures]) => ({
      context: { slot },
      value: (signatures as string[]).map((s) => {
        const found = seen.get(s);
        return found
          ? { slot: found.slot, confirmations: null, err: found.err, confirmationStatus: "finalized", status: { Ok: null } }
          : null;
      }),
    }),
    sendTransaction: ([encoded]) => {
      const transaction = decoder.decode(Buffer.from(String(encoded), "base64"));
      const signature = base58.decode(Object.values(transaction.signatures)[0]!);
      if (seen.has(signature))
        throw new RpcError(-32002, "Transaction simulation failed: This transaction has already been processed", {
          err: "AlreadyProcessed",
          logs: [],
        });
      const result = svm.sendTransaction(transaction);
      if (result instanceof FailedTransactionMetadata) {
        throw new RpcError(-32002, `Transaction simulation failed: ${String(result.err())}`, {
          err: String(result.err()),
          logs: result.meta().logs(),
          accounts: null,
          unitsConsumed: Number(result.meta().computeUnitsConsumed()),
        });
      }
      seen.set(signature, { slot: ++slot, err: null });
      return signature;
    },
  };
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const call = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
      let answer: Record<string, unknown>;
      try {
        const handler = handlers[call.method];
        if (!handler) throw new RpcError(-32601, `Method not found: ${call.method}`);
        answer = { jsonrpc: "2.0", id: call.id, result: handler(call.params ?? []) };
      } catch (error) {
        const { code, message, data } = error as RpcError;
        answer = { jsonrpc: "2.0", id: call.id, error: { code, message, data } };
      }
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    svm,
    expireBlockhash() {
      validBlockhashes.clear();
      svm.expireBlockhash();
      validBlockhashes.add(svm.latestBlockhash());
    },
    createMint(mint, decimals) {
      const data = Buffer.alloc(MINT_SIZE);
      data.writeUInt8(decimals, 44);
      data.writeUInt8(1, 45); // initialized
      write(mint, data);
    },
    createTokenAccount(account, mint, owner, amount) {
      const data = Buffer.alloc(TOKEN_ACCOUNT_SIZE);
      data.set(base58Encoder.encode(mint), 0);
      data.set(base58Encoder.encode(owner), 32);
      data.writeBigUInt64LE(amount, 64);
      data.writeUInt8(1, 108); // initialized
      write(account, data);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
