import { encodeFunctionData, parseEther, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anvilBinary, type Anvil } from "../helpers/anvil.js";
import { deployToken, ERC20_ABI } from "../helpers/evm-token.js";
import type { TestServer } from "../helpers/server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";
import { BASE_SEPOLIA, ETHEREUM_ACCOUNT, startChainWorld, TOKEN, until, type ChainWorld } from "./helpers.js";

/**
 * The flows of two examples in the hosted service's SDK repository, run against Strongroom and a real node:
 * `sweeper` (move every listed token, then all the ETH less the most the gas can cost, out of each funded account)
 * and `with-tx-webhooks` (subscribe to balance and transaction-status webhooks, read balances, send ETH and an
 * ERC-20 unsponsored, and receive what happened at a local HTTP receiver). Written for this project, through the
 * unchanged @turnkey/sdk-server.
 */
const CAIP2 = BASE_SEPOLIA;
const ACCOUNT = ETHEREUM_ACCOUNT;
const transferCall = (to: string, amount: bigint) =>
  encodeFunctionData({ abi: ERC20_ABI, functionName: "transfer", args: [to as Hex, amount] });

describe.skipIf(!anvilBinary.path)("the hosted service's sweeper and tx-webhooks examples, on Strongroom and anvil", () => {
  let world: ChainWorld;
  let anvil: Anvil;
  let server: TestServer;
  let chain: ChainWorld["chain"];
  const client = () => server.client();
  const final = (sendTransactionStatusId: string) => world.finalStatus(sendTransactionStatusId);
  const tokenBalance = (owner: string) =>
    chain.readContract({ address: TOKEN, abi: ERC20_ABI, functionName: "balanceOf", args: [owner as Hex] });

  beforeAll(async () => {
    world = await startChainWorld({ EVM_POLL_MS: "50" });
    ({ anvil, server, chain } = world);
    await until(
      () => server.services.db.query("SELECT 1 FROM chain_cursors WHERE chain = $1", [CAIP2]),
      (rows) => rows.length === 1,
    );
  }, 120_000);
  afterAll(() => world?.stop());

  it("sweeper: each funded account's tokens, then its ETH less the most gas can cost, land at the destination; an empty account is skipped", async () => {
    const { walletId, addresses } = await client().createWallet({
      walletName: "hot",
      accounts: [0, 1].map((i) => ({ ...ACCOUNT, path: `m/44'/60'/0'/0/${i}` })),
    });
    const { addresses: vault } = await client().createWallet({ walletName: "vault", accounts: [{ ...ACCOUNT, path: "m/44'/60'/0'/0/0" }] });
    const destination = vault[0]!;
    const [funded, empty] = addresses as [Hex, Hex];
    await anvil.rpc("anvil_setBalance", [funded, `0x${parseEther("2").toString(16)}`]);
    await deployToken(anvil.rpc, TOKEN, funded, 1_234n);

    const swept: string[] = [];
    for (const { address } of (await client().getWalletAccounts({ walletId })).accounts) {
      const { balances = [] } = await client().getWalletAddressBalances({ address, caip2: CAIP2 });
      const eth = balances.find((b) => b.caip19 === `${CAIP2}/slip44:60`);
      if (!eth) continue; // a zero balance is left out of the answer: nothing to sweep, nothing to pay gas with
      for (const token of balances.filter((b) => b.caip19!.includes("/erc20:"))) {
        const contract = token.caip19!.split("/erc20:")[1]!;
        const { sendTransactionStatusId } = await client().ethSendTransaction({
          from: address,
          caip2: CAIP2,
          sponsor: false,
          calls: [{ to: contract, data: transferCall(destination, BigInt(token.balance!)) }],
        });
        expect((await final(sendTransactionStatusId)).txStatus).toBe("INCLUDED");
      }
      const fees = await chain.estimateFeesPerGas();
      const balance = BigInt(
        (await client().getWalletAddressBalances({ address, caip2: CAIP2 })).balances!.find((b) => b.symbol === "ETH")!.balance!,
      );
      const value = balance - fees.maxFeePerGas * 21_000n;
      const { sendTransactionStatusId } = await client().ethSendTransaction({
        from: address,
        caip2: CAIP2,
        sponsor: false,
        gasLimit: "21000",
        maxFeePerGas: fees.maxFeePerGas.toString(),
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
        calls: [{ to: destination, value: value.toString() }],
      });
      const status = await final(sendTransactionStatusId);
      expect(status.txStatus).toBe("INCLUDED");
      const receipt = await chain.getTransactionReceipt({ hash: status.eth!.txHash as Hex });
      expect(await chain.getBalance({ address: address as Hex })).toBe(balance - value - receipt.gasUsed * receipt.effectiveGasPrice);
      swept.push(address);
    }

    expect(swept).toEqual([funded]);
    expect(await tokenBalance(funded)).toBe(0n);
    expect(await tokenBalance(destination)).toBe(1_234n);
    const rows = await server.services.db.query<{ from_address: string }>(
      "SELECT from_address FROM send_transactions WHERE lower(from_address) = lower($1)",
      [empty],
    );
    expect(rows).toEqual([]);
    // The destination, another of the organization's accounts, shows both sweeps arriving, sent by Strongroom.
    const history = await until(
      () => client().listEthTransactionHistory({ address: destination, caip2: CAIP2 }),
      (h) => h.transactions.length === 2,
    );
    expect(
      history.transactions.map((t) => [t.origin, t.from.toLowerCase(), t.transfers.map((x) => [x.direction, x.asset?.symbol])]),
    ).toEqual([
      ["TURNKEY", funded.toLowerCase(), [["IN", "ETH"]]],
      ["TURNKEY", funded.toLowerCase(), [["IN", "TKN"]]],
    ]);
    expect(history.transactions[1]!.turnkey).toMatchObject({ sponsored: false, activityFingerprint: expect.stringMatching(/^sha256:/) });
  }, 120_000);

  it("tx-webhooks: BROADCASTING then INCLUDED per send, and the balance changes, reach their routes of a local receiver", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const origin = new URL(receiver.url).origin;
      // As the example's register-webhook script does: one endpoint per event type, no filters.
      for (const [eventType, path] of [
        ["BALANCE_CONFIRMED_UPDATES", "/webhook/balance-updates"],
        ["SEND_TRANSACTION_STATUS_UPDATES", "/webhook/tx-updates"],
      ] as const)
        await client().createWebhookEndpoint({
          name: `${eventType.toLowerCase()}-${Date.now()}`,
          url: `${origin}${path}`,
          subscriptions: [{ eventType }],
        });

      const { addresses } = await client().createWallet({ walletName: "payments", accounts: [{ ...ACCOUNT, path: "m/44'/60'/0'/0/7" }] });
      const sender = addresses[0]!;
      await anvil.rpc("anvil_setBalance", [sender, `0x${parseEther("1").toString(16)}`]);
      await deployToken(anvil.rpc, TOKEN, sender as Hex, 500n);
      const { balances } = await client().getWalletAddressBalances({ address: sender, caip2: CAIP2 });
      expect(balances!.map((b) => [b.symbol, b.balance])).toEqual([
        ["ETH", parseEther("1").toString()],
        ["TKN", "500"],
      ]);

      const recipient = "0x9999999999999999999999999999999999999999";
      const native = await client().ethSendTransaction({
        from: sender,
        caip2: CAIP2,
        sponsor: false,
        calls: [{ to: recipient, value: "4200" }],
      });
      const erc20 = await client().ethSendTransaction({
        from: sender,
        caip2: CAIP2,
        sponsor: false,
        calls: [{ to: TOKEN, data: transferCall(recipient, 120n) }],
      });
      const ids = [native.sendTransactionStatusId, erc20.sendTransactionStatusId];
      const hashes = await Promise.all(ids.map(async (id) => (await final(id)).eth!.txHash!));

      const at = (path: string) =>
        receiver.received
          .filter((d) => d.path === path)
          .map((d) => JSON.parse(d.body.toString()) as { type: string; msg: Record<string, unknown> });
      // The watcher may still report the sweeps above: only the sender's changes are this flow's.
      const ofSender = () => at("/webhook/balance-updates").filter((e) => e.msg.address === sender.toLowerCase());
      await receiver.until(() => at("/webhook/tx-updates").length === 4 && ofSender().length === 2, 30_000);
      for (const [i, id] of ids.entries()) {
        const updates = at("/webhook/tx-updates").filter((e) => e.msg.sendTransactionStatusId === id);
        expect(updates.map((e) => [e.type, e.msg.status, e.msg.caip2])).toEqual([
          ["transaction:status", "BROADCASTING", CAIP2],
          ["transaction:status", "INCLUDED", CAIP2],
        ]);
        expect(updates[1]!.msg.txHash).toBe(hashes[i]);
      }
      const changes = ofSender().map((e) => {
        const asset = e.msg.asset as { symbol: string; amount: string };
        return [e.type, e.msg.operation, e.msg.txHash, asset.symbol, asset.amount];
      });
      expect(changes).toEqual([
        ["balances:confirmed", "withdraw", hashes[0], "ETH", "4200"],
        ["balances:confirmed", "withdraw", hashes[1], "TKN", "120"],
      ]);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
