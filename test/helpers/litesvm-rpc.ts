import { createServer, type Server } from "node:http";
import { getBase58Decoder, getTransactionDecoder, type Address } from "@solana/kit";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";

/**
 * A Solana runtime (litesvm, in process) behind the few JSON-RPC methods Strongroom calls — getLatestBlockhash,
 * sendTransaction (with preflight: a failing transaction is refused, as a validator's simulation refuses it),
 * getSignatureStatuses, isBlockhashValid — plus getBalance for the tests. Each accepted transaction gets the
 * next slot and is reported confirmed.
 */
export interface SolanaNode {
  url: string;
  svm: LiteSVM;
  /** Makes the current blockhash stale (litesvm's expireBlockhash), as time passing on a cluster would. */
  expireBlockhash(): void;
  close(): Promise<void>;
}

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
  const handlers: Record<string, (params: unknown[]) => unknown> = {
    getLatestBlockhash: () => ({ context: { slot }, value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: slot + 150 } }),
    getBlockTime: () => Number(svm.getClock().unixTimestamp),
    isBlockhashValid: ([hash]) => ({ context: { slot }, value: validBlockhashes.has(String(hash)) }),
    getBalance: ([address]) => ({ context: { slot }, value: Number(svm.getBalance(address as Address) ?? 0n) }),
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
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
