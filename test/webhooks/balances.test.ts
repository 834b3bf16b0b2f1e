import ganache from "ganache";
import { serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

type Rpc = <T>(method: string, params?: unknown[]) => Promise<T>;

/** A real local EVM node (ganache) on loopback, with deterministic funded accounts. */
async function startChain() {
  const node = ganache.server({ logging: { quiet: true }, wallet: { deterministic: true }, chain: { chainId: 31337 } });
  await new Promise<void>((resolve, reject) => node.listen(0, "127.0.0.1", (error) => (error ? reject(error) : resolve())));
  const url = `http://127.0.0.1:${(node.address() as { port: number }).port}`;
  const rpc: Rpc = async (method, params = []) => {
    const body = (await (
      await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      })
    ).json()) as { result: never; error?: { message: string } };
    if (body.error) throw new Error(body.error.message);
    return body.result;
  };
  return { url, rpc, close: () => node.close() };
}

interface BalanceEvent {
  type: string;
  organizationId: string;
  msg: {
    operation: string;
    caip2: string;
    txHash: string;
    address: string;
    idempotencyKey: string;
    asset: { symbol: string; amount: string; caip19: string };
    block: { number: number; hash: string };
  };
}

describe("balance webhooks from a watched EVM chain", () => {
  let chain: Awaited<ReturnType<typeof startChain>>;
  let server: TestServer;
  beforeAll(async () => {
    chain = await startChain();
    server = await startTestServer({
      env: {
        EVM_RPC_URL: chain.url,
        EVM_POLL_MS: "50",
        EVM_FINALITY_DEPTH: "2",
        STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1",
        STRONGROOM_WEBHOOK_POLL_MS: "20",
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await chain.close();
  });

  it("reports a deposit and a withdrawal when seen, and again once final", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { addresses } = await server.client().createWallet({
        walletName: "watched",
        accounts: [
          { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
        ],
      });
      const address = addresses[0]!.toLowerCase();
      await server.client().createWebhookEndpoint({
        url: receiver.url,
        name: "balances",
        subscriptions: [
          {
            eventType: "BALANCE_CONFIRMED_UPDATES",
            filtersJson: JSON.stringify({ addresses: [addresses[0]], networks: ["eip155:31337"] }),
          },
          { eventType: "BALANCE_FINALIZED_UPDATES" },
        ],
      });
      // The watcher starts from the block it first sees: the deposit must come after its cursor is in place.
      const current = Number(await chain.rpc<string>("eth_blockNumber"));
      await vi.waitFor(async () => {
        const [cursor] = await server.services.db.query<{ last_block: string }>(
          "SELECT last_block FROM chain_cursors WHERE chain = 'eip155:31337'",
        );
        expect(Number(cursor?.last_block)).toBeGreaterThanOrEqual(current);
      }, 10_000);

      const [funder] = await chain.rpc<string[]>("eth_accounts");
      const deposit = await chain.rpc<string>("eth_sendTransaction", [{ from: funder, to: addresses[0], value: "0xde0b6b3a7640000" }]);
      const events = () =>
        receiver.received
          .filter((d) => d.headers["x-turnkey-event-type"]?.toString().startsWith("BALANCE"))
          .map((d) => JSON.parse(d.body.toString()) as BalanceEvent);
      await receiver.until(() => events().some((e) => e.type === "balances:confirmed"));
      const confirmed = events().find((e) => e.type === "balances:confirmed")!;
      expect(confirmed).toMatchObject({
        organizationId: server.root.organizationId,
        msg: {
          operation: "deposit",
          caip2: "eip155:31337",
          txHash: deposit,
          address,
          asset: { symbol: "ETH", amount: "1000000000000000000", caip19: "eip155:31337/slip44:60" },
        },
      });
      expect(confirmed.msg.idempotencyKey).toMatch(/^[0-9a-f]{64}:balances:confirmed$/);
      expect(events().some((e) => e.type === "balances:finalized")).toBe(false);

      await chain.rpc("evm_mine");
      await chain.rpc("evm_mine");
      await receiver.until(() => events().some((e) => e.type === "balances:finalized"));
      expect(events().find((e) => e.type === "balances:finalized")!.msg).toMatchObject({
        txHash: deposit,
        operation: "deposit",
        block: confirmed.msg.block,
      });

      // A withdrawal: a transfer signed by Strongroom and broadcast to the chain.
      const gasPrice = await chain.rpc<string>("eth_gasPrice");
      const unsigned = serializeTransaction({
        type: "legacy",
        chainId: 31337,
        nonce: 0,
        gasPrice: BigInt(gasPrice),
        gas: 21000n,
        to: "0x2222222222222222222222222222222222222222",
        value: 5000n,
      }).slice(2);
      const { signedTransaction } = await server
        .client()
        .signTransaction({ signWith: addresses[0]!, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: unsigned });
      const withdrawal = await chain.rpc<string>("eth_sendRawTransaction", [`0x${signedTransaction}`]);
      await receiver.until(() => events().some((e) => e.msg.txHash === withdrawal && e.type === "balances:confirmed"));
      expect(events().find((e) => e.msg.txHash === withdrawal)!.msg).toMatchObject({ operation: "withdraw", asset: { amount: "5000" } });
      const perKey = new Map<string, number>();
      for (const e of events()) perKey.set(e.msg.idempotencyKey, (perKey.get(e.msg.idempotencyKey) ?? 0) + 1);
      expect([...perKey.values()].every((n) => n === 1)).toBe(true);

      // What the watcher saw is the address's history too (not sent through Strongroom: origin EXTERNAL).
      const { transactions } = await server.client().listEthTransactionHistory({ address: addresses[0]!, caip2: "eip155:31337" as never });
      expect(transactions.map((t) => [t.transactionHash, t.origin, t.transfers[0]!.direction, t.transfers[0]!.amount])).toEqual([
        [withdrawal, "EXTERNAL", "OUT", "5000"],
        [deposit, "EXTERNAL", "IN", "1000000000000000000"],
      ]);
      expect(transactions[1]!.transfers[0]!.counterparty.toLowerCase()).toBe(funder!.toLowerCase());
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
