import { encodeFunctionData, serializeTransaction, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anvilBinary, startAnvil, type Anvil } from "../helpers/anvil.js";
import { deployToken, ERC20_ABI } from "../helpers/evm-token.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";
import { until } from "./helpers.js";

const BASE_SEPOLIA = "eip155:84532";
const SEPOLIA = "eip155:11155111";
const TOKEN = "0x2222222222222222222222222222222222222222" as const;
const RECIPIENT = "0x1111111111111111111111111111111111111111" as const;
const transferCall = (to: Hex, amount: bigint) => encodeFunctionData({ abi: ERC20_ABI, functionName: "transfer", args: [to, amount] });
const ACCOUNT = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", addressFormat: "ADDRESS_FORMAT_ETHEREUM" } as const;

interface BalanceEvent {
  type: string;
  msg: {
    operation: string;
    caip2: string;
    txHash: string;
    address: string;
    idempotencyKey: string;
    asset: { symbol: string; name: string; decimals: number; caip19: string; amount: string };
  };
}

describe.skipIf(!anvilBinary.path)("the block watcher reads every configured EVM chain (two anvil nodes)", () => {
  let base: Anvil;
  let sepolia: Anvil;
  let server: TestServer;
  let address: Hex;
  let funder: Hex;
  beforeAll(async () => {
    [base, sepolia] = await Promise.all([startAnvil({ chainId: 84532 }), startAnvil({ chainId: 11155111 })]);
    server = await startTestServer({
      env: {
        CHAIN_RPC_URLS: `${BASE_SEPOLIA}=${base.url};${SEPOLIA}=${sepolia.url}`,
        CHAIN_ASSETS: JSON.stringify({ [BASE_SEPOLIA]: [{ address: TOKEN, symbol: "TKN", name: "Test token", decimals: 2 }] }),
        EVM_POLL_MS: "50",
        EVM_FINALITY_DEPTH: "1",
        STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1",
        STRONGROOM_WEBHOOK_POLL_MS: "20",
      },
    });
    const { addresses } = await server
      .client()
      .createWallet({ walletName: "watched", accounts: [{ ...ACCOUNT, path: "m/44'/60'/0'/0/0" }] });
    address = addresses[0] as Hex;
    funder = (await base.rpc<Hex[]>("eth_accounts"))[0]!;
    await deployToken(base.rpc, TOKEN, funder, 1_000n);
    // The watcher starts at the block it first sees: what the test sends must come after both cursors are in place.
    const heads = await Promise.all([base, sepolia].map(async (node) => Number(await node.rpc<string>("eth_blockNumber"))));
    await until(
      () => server.services.db.query<{ chain: string; last_block: string }>("SELECT chain, last_block FROM chain_cursors ORDER BY chain"),
      (rows) => rows.length === 2 && Number(rows[0]!.last_block) >= heads[0]! && Number(rows[1]!.last_block) >= heads[1]!,
    );
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await Promise.all([base?.stop(), sepolia?.stop()]);
  });

  it("reports deposits on both chains, ERC-20 transfers of a listed token among them; the history shows each transaction once", async () => {
    const receiver = await startWebhookReceiver();
    try {
      await server.client().createWebhookEndpoint({
        url: receiver.url,
        name: "balances",
        subscriptions: [{ eventType: "BALANCE_CONFIRMED_UPDATES" }, { eventType: "BALANCE_FINALIZED_UPDATES" }],
      });
      const send = (node: Anvil, call: { to: Hex; value?: bigint; data?: Hex }) =>
        node.rpc<Hex>("eth_sendTransaction", [
          { from: funder, to: call.to, value: `0x${(call.value ?? 0n).toString(16)}`, ...(call.data ? { data: call.data } : {}) },
        ]);
      const onBase = await send(base, { to: address, value: 5_000n });
      const onSepolia = await send(sepolia, { to: address, value: 7_000n });
      const tokenIn = await send(base, { to: TOKEN, data: transferCall(address, 250n) });
      // An ERC-20 transfer between two outsiders is not the organization's.
      await send(base, { to: TOKEN, data: transferCall(TOKEN, 1n) });
      // One transaction moving both ETH and tokens out of the address: signed by Strongroom, sent by someone else.
      await base.rpc("anvil_setBalance", [address, `0x${(10n ** 18n).toString(16)}`]);
      const unsigned = serializeTransaction({
        type: "eip1559", chainId: 84532, nonce: 0, gas: 100_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n,
        to: TOKEN, value: 3n, data: transferCall(RECIPIENT, 50n),
      }); // prettier-ignore
      const { signedTransaction } = await server
        .client()
        .signTransaction({ signWith: address, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: unsigned.slice(2) });
      const mixedOut = await base.rpc<Hex>("eth_sendRawTransaction", [`0x${signedTransaction}`]);
      await Promise.all([base, sepolia].map((node) => node.rpc("evm_mine")));

      const events = () => receiver.received.map((d) => JSON.parse(d.body.toString()) as BalanceEvent);
      const ofType = (type: string) => events().filter((e) => e.type === type);
      await receiver.until(() => ofType("balances:confirmed").length === 5 && ofType("balances:finalized").length === 5, 30_000);
      const summary = (e: BalanceEvent) => [e.msg.caip2, e.msg.txHash, e.msg.operation, e.msg.asset.symbol, e.msg.asset.amount];
      const expected = [
        [BASE_SEPOLIA, onBase, "deposit", "ETH", "5000"],
        [BASE_SEPOLIA, tokenIn, "deposit", "TKN", "250"],
        [BASE_SEPOLIA, mixedOut, "withdraw", "ETH", "3"],
        [BASE_SEPOLIA, mixedOut, "withdraw", "TKN", "50"],
        [SEPOLIA, onSepolia, "deposit", "ETH", "7000"],
      ].sort();
      expect(ofType("balances:confirmed").map(summary).sort()).toEqual(expected);
      expect(ofType("balances:finalized").map(summary).sort()).toEqual(expected);
      const token = ofType("balances:confirmed").find((e) => e.msg.txHash === tokenIn)!;
      expect(token.msg.asset).toEqual({
        symbol: "TKN",
        name: "Test token",
        decimals: 2,
        caip19: `${BASE_SEPOLIA}/erc20:${TOKEN}`,
        amount: "250",
      });
      expect(token.msg.address).toBe(address.toLowerCase());
      expect(new Set(events().map((e) => e.msg.idempotencyKey)).size).toBe(events().length);

      // The history: one item per transaction, each of its transfers decoded, the other party named.
      const { transactions } = await server.client().listEthTransactionHistory({ address, caip2: BASE_SEPOLIA });
      expect(transactions.map((t) => [t.transactionHash, t.origin, t.status])).toEqual([
        [mixedOut, "EXTERNAL", "FINALIZED"],
        [tokenIn, "EXTERNAL", "FINALIZED"],
        [onBase, "EXTERNAL", "FINALIZED"],
      ]);
      const eth = { caip19: `${BASE_SEPOLIA}/slip44:60`, symbol: "ETH", name: "Ethereum", decimals: 18 };
      const tkn = { caip19: `${BASE_SEPOLIA}/erc20:${TOKEN}`, symbol: "TKN", name: "Test token", decimals: 2 };
      expect([transactions[0]!.from.toLowerCase(), transactions[0]!.to]).toEqual([address.toLowerCase(), TOKEN]);
      expect(transactions[0]!.transfers).toEqual([
        { direction: "OUT", asset: eth, amount: "3", counterparty: TOKEN, display: { crypto: "0.000000000000000003" } },
        { direction: "OUT", asset: tkn, amount: "50", counterparty: RECIPIENT, display: { crypto: "0.5" } },
      ]);
      expect(transactions[1]!.transfers).toEqual([
        { direction: "IN", asset: tkn, amount: "250", counterparty: funder.toLowerCase(), display: { crypto: "2.5" } },
      ]);
      const other = await server.client().listEthTransactionHistory({ address, caip2: SEPOLIA });
      expect(other.transactions.map((t) => [t.transactionHash, t.transfers[0]!.amount])).toEqual([[onSepolia, "7000"]]);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
