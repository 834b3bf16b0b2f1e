import { encodeFunctionData, parseEther, serializeTransaction, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anvilBinary, type Anvil } from "../helpers/anvil.js";
import { deployToken, ERC20_ABI, TOKEN_REVERT_REASON } from "../helpers/evm-token.js";
import { refusal } from "../helpers/refusal.js";
import type { TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";
import { controlIntent, createControl, httpClient } from "../helpers/velocity-controls.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";
import { BASE_SEPOLIA, ETHEREUM_ACCOUNT, loggedInCoreClient, startChainWorld, TOKEN, until, type ChainWorld } from "./helpers.js";

const CAIP2 = BASE_SEPOLIA;
const ACCOUNT = ETHEREUM_ACCOUNT;
const RECIPIENT = "0x1111111111111111111111111111111111111111" as const;

describe.skipIf(!anvilBinary.path)("sending EVM transactions to a real node (anvil, chain 84532)", () => {
  let world: ChainWorld;
  let anvil: Anvil;
  let server: TestServer;
  let from: Hex;
  let chain: ChainWorld["chain"];
  const root = () => server.client();
  const included = (id: string) => world.finalStatus(id);

  beforeAll(async () => {
    world = await startChainWorld();
    ({ anvil, server, chain } = world);
    const { addresses } = await root().createWallet({ walletName: "sender", accounts: [{ ...ACCOUNT, path: "m/44'/60'/0'/0/0" }] });
    from = addresses[0] as Hex;
    await anvil.rpc("anvil_setBalance", [from, `0x${parseEther("100").toString(16)}`]);
  }, 120_000);
  afterAll(() => world?.stop());

  it("sends ETH through @turnkey/core's ethSendTransaction and pollTransactionStatus; the receipt is the node's", async () => {
    const core = loggedInCoreClient(
      server,
      { apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! },
      server.root.organizationId,
    );
    const before = await chain.getBalance({ address: RECIPIENT });
    const id = await core.ethSendTransaction({
      transaction: { from, to: RECIPIENT, caip2: CAIP2, value: parseEther("1.5").toString() } as never,
    });
    const final = (await core.pollTransactionStatus({ sendTransactionStatusId: id, pollingIntervalMs: 100 })) as {
      txStatus: string;
      eth: { txHash: Hex };
    };
    expect(final.txStatus).toBe("INCLUDED");
    const receipt = await chain.getTransactionReceipt({ hash: final.eth.txHash });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(from.toLowerCase());
    expect(receipt.to?.toLowerCase()).toBe(RECIPIENT);
    expect((await chain.getBalance({ address: RECIPIENT })) - before).toBe(parseEther("1.5"));
    // Filled in: a nonce, a gas limit and EIP-1559 fees.
    const sent = await chain.getTransaction({ hash: final.eth.txHash });
    expect(sent.type).toBe("eip1559");
    expect(sent.gas).toBeGreaterThanOrEqual(21_000n);
  }, 120_000);

  it("sends an ERC-20 transfer (ethSendErc20Transfer) with V2's calls; the token's balances move", async () => {
    await deployToken(anvil.rpc, TOKEN, from, 1_000n);
    const core = loggedInCoreClient(
      server,
      { apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! },
      server.root.organizationId,
    );
    const id = await core.ethSendErc20Transfer({
      transfer: { from, to: RECIPIENT, tokenAddress: TOKEN, amount: "250", caip2: CAIP2 } as never,
    });
    await core.pollTransactionStatus({ sendTransactionStatusId: id, pollingIntervalMs: 100 });
    const balanceOf = (owner: Hex) => chain.readContract({ address: TOKEN, abi: ERC20_ABI, functionName: "balanceOf", args: [owner] });
    expect(await balanceOf(RECIPIENT)).toBe(250n);
    expect(await balanceOf(from)).toBe(750n);
    const v2 = await root().ethSendTransaction({
      from,
      caip2: CAIP2,
      calls: [{ to: TOKEN, data: encodeFunctionData({ abi: ERC20_ABI, functionName: "transfer", args: [RECIPIENT, 50n] }) }],
    } as never);
    expect((await included(v2.sendTransactionStatusId)).txStatus).toBe("INCLUDED");
    expect(await balanceOf(RECIPIENT)).toBe(300n);
  }, 120_000);

  it("a call that reverts on chain ends FAILED with its mined hash and the decoded revert chain", async () => {
    const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "transfer", args: [RECIPIENT, 10n ** 30n] });
    // Left to estimation, the revert is found before anything is signed: a 400 saying why.
    const estimated = await refusal(root().ethSendTransaction({ from, caip2: CAIP2, calls: [{ to: TOKEN, data }] } as never));
    expect(estimated.message).toContain(`the call reverts on ${CAIP2} (${TOKEN_REVERT_REASON})`);
    // With a gas limit, it is sent and mined, and reverts there.
    const { sendTransactionStatusId } = await root().ethSendTransaction({
      from,
      caip2: CAIP2,
      gasLimit: "100000",
      calls: [{ to: TOKEN, data }],
    } as never);
    const final = await included(sendTransactionStatusId);
    expect(final.txStatus).toBe("FAILED");
    expect((await chain.getTransactionReceipt({ hash: final.eth!.txHash as Hex })).status).toBe("reverted");
    const entry = {
      address: TOKEN,
      errorType: "native",
      displayMessage: TOKEN_REVERT_REASON,
      native: { nativeType: "error_string", message: TOKEN_REVERT_REASON },
    };
    expect(final.error).toEqual({
      message: `Execution reverted on chain: ${TOKEN_REVERT_REASON}`,
      revertChain: [entry],
      eth: { revertChain: [entry] },
    });
    expect(final.txError).toBe(`Execution reverted on chain: ${TOKEN_REVERT_REASON}`);
  }, 120_000);

  it("concurrent sends from one address get consecutive nonces, and every one lands", async () => {
    const start = await chain.getTransactionCount({ address: from });
    const ids = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        root().ethSendTransaction({ from, caip2: CAIP2, calls: [{ to: RECIPIENT, value: String(1000 + i) }] }),
      ),
    );
    const finals = await Promise.all(ids.map((r) => included(r.sendTransactionStatusId)));
    const nonces = await Promise.all(finals.map(async (f) => (await chain.getTransaction({ hash: f.eth!.txHash as Hex })).nonce));
    expect(finals.map((f) => f.txStatus)).toEqual(Array(5).fill("INCLUDED"));
    expect([...nonces].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4].map((i) => start + i));
    // get_nonces answers the next one.
    expect((await root().getNonces({ address: from, caip2: CAIP2, nonce: true })).nonce).toBe(String(start + 5));
  }, 120_000);

  it("a caller's nonce wins; later allocations go past it", async () => {
    const next = await chain.getTransactionCount({ address: from });
    const given = await root().ethSendTransaction({ from, caip2: CAIP2, nonce: String(next), calls: [{ to: RECIPIENT, value: "1" }] });
    const final = await included(given.sendTransactionStatusId);
    expect((await chain.getTransaction({ hash: final.eth!.txHash as Hex })).nonce).toBe(next);
    const after = await root().ethSendTransaction({ from, caip2: CAIP2, calls: [{ to: RECIPIENT, value: "2" }] });
    const landed = await included(after.sendTransactionStatusId);
    expect((await chain.getTransaction({ hash: landed.eth!.txHash as Hex })).nonce).toBe(next + 1);
  }, 120_000);

  // Before any test that adds another user's allow policy: a send that policy's condition matches would wait for
  // that user's approval instead of being denied.
  it("a daily velocity control caps what a user sends: under it lands, the send that crosses it is denied before signing", async () => {
    const user = await createUserWithApiKey(root(), "capped");
    const client = httpClient(server.url, user.credentials);
    const asset = { caip19: `${CAIP2}/slip44:60`, decimals: "18" };
    await createControl(
      httpClient(server.url, { apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! }),
      server.root.organizationId,
      controlIntent("daily_send", { chainAssetTransfer: { definition: [asset] } }, { threshold: "1", seconds: 86_400 }),
    );
    await root().createPolicy({
      policyName: "capped may send within the daily cap",
      effect: "EFFECT_ALLOW",
      consensus: `approvers.any(user, user.id == '${user.userId}')`,
      condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && controls.daily_send",
      notes: "",
    });
    const capped = server.client(user.credentials);
    const to = "0x4444444444444444444444444444444444444444";
    const send = (value: bigint) => capped.ethSendTransaction({ from, caip2: CAIP2, calls: [{ to, value: value.toString() }] });
    const first = await send(parseEther("0.6"));
    expect((await included(first.sendTransactionStatusId)).txStatus).toBe("INCLUDED");
    const sendsBefore = (await server.services.db.query<{ count: string }>("SELECT count(*) FROM send_transactions"))[0]!.count;
    expect((await refusal(send(parseEther("0.5")))).code).toBe(7);
    expect((await server.services.db.query<{ count: string }>("SELECT count(*) FROM send_transactions"))[0]!.count).toBe(sendsBefore);
    // What is left under the cap still goes; the control counted only what was sent.
    const last = await send(parseEther("0.4"));
    expect((await included(last.sendTransactionStatusId)).txStatus).toBe("INCLUDED");
    const { velocityControls } = await client.listVelocityControls({ organizationId: server.root.organizationId });
    expect(velocityControls.map((c) => c.identifier)).toContain("daily_send");
  }, 120_000);

  it("a deny policy on eth.tx.to refuses before anything is signed or sent", async () => {
    const user = await createUserWithApiKey(root(), "agent");
    await root().createPolicy({
      policyName: "agent may send",
      effect: "EFFECT_ALLOW",
      consensus: `approvers.any(user, user.id == '${user.userId}')`,
      condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
      notes: "",
    });
    await root().createPolicy({
      policyName: "never to the blocked address",
      effect: "EFFECT_DENY",
      condition: `eth.tx.to == '${RECIPIENT}'`,
      notes: "",
    });
    const agent = server.client(user.credentials);
    const nonceBefore = await chain.getTransactionCount({ address: from, blockTag: "pending" });
    const sends = async () => (await server.services.db.query<{ count: string }>("SELECT count(*) FROM send_transactions"))[0]!.count;
    const sendsBefore = await sends();
    const denied = await refusal(agent.ethSendTransaction({ from, caip2: CAIP2, calls: [{ to: RECIPIENT, value: "5" }] }));
    expect(denied.code).toBe(7);
    expect(await sends()).toBe(sendsBefore);
    expect(await chain.getTransactionCount({ address: from, blockTag: "pending" })).toBe(nonceBefore);
    // Elsewhere, the same user may send.
    const allowed = await agent.ethSendTransaction({
      from,
      caip2: CAIP2,
      calls: [{ to: "0x3333333333333333333333333333333333333333", value: "5" }],
    });
    expect((await included(allowed.sendTransactionStatusId)).txStatus).toBe("INCLUDED");
  }, 120_000);

  it("a send that needs a second approval waits, unsigned and unsent; the approval fills it again and it lands once", async () => {
    const requester = await createUserWithApiKey(root(), "requester");
    const approver = await createUserWithApiKey(root(), "approver");
    const to = "0x5555555555555555555555555555555555555555";
    await root().createPolicy({
      policyName: "sends to 0x5555 need the approver",
      effect: "EFFECT_ALLOW",
      consensus: `approvers.any(user, user.id == '${approver.userId}')`,
      condition: `activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && eth.tx.to == '${to}'`,
      notes: "",
    });
    const sendsOf = async (activityId: string) =>
      server.services.db.query<{ id: string }>("SELECT id FROM send_transactions WHERE activity_id = $1", [activityId]);
    const submitted = await server.client(requester.credentials).ethSendTransaction({ from, caip2: CAIP2, calls: [{ to, value: "123" }] });
    expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(await sendsOf(submitted.activity.id)).toEqual([]);
    // Meanwhile another send from the address takes the nonce the waiting one was filled with.
    const pendingBefore = await chain.getTransactionCount({ address: from, blockTag: "pending" });
    const other = await root().ethSendTransaction({
      from,
      caip2: CAIP2,
      calls: [{ to: "0x3333333333333333333333333333333333333333", value: "1" }],
    });
    const otherFinal = await included(other.sendTransactionStatusId);
    expect((await chain.getTransaction({ hash: otherFinal.eth!.txHash as Hex })).nonce).toBe(pendingBefore);

    const approved = await server.client(approver.credentials).approveActivity({ fingerprint: submitted.activity.fingerprint });
    expect(approved.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const { sendTransactionStatusId } = approved.activity.result.ethSendTransactionResultV2!;
    const final = await included(sendTransactionStatusId);
    expect(final.txStatus).toBe("INCLUDED");
    const mined = await chain.getTransaction({ hash: final.eth!.txHash as Hex });
    expect([mined.nonce, mined.to, mined.value]).toEqual([pendingBefore + 1, to, 123n]);
    expect(await sendsOf(submitted.activity.id)).toEqual([{ id: sendTransactionStatusId }]);
    // Approving again sends nothing more.
    await refusal(server.client(approver.credentials).approveActivity({ fingerprint: submitted.activity.fingerprint }));
    expect(await sendsOf(submitted.activity.id)).toHaveLength(1);
    expect(await chain.getTransactionCount({ address: from, blockTag: "pending" })).toBe(pendingBefore + 2);
  }, 120_000);

  it("an identical resubmitted body answers the same activity and sends once", async () => {
    const core = loggedInCoreClient(
      server,
      { apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! },
      server.root.organizationId,
    );
    const http = core.httpClient;
    const body = { from, caip2: CAIP2, to: RECIPIENT, value: "77", timestampMs: String(Date.now()) } as never;
    const [first, second] = [await http.ethSendTransaction(body), await http.ethSendTransaction(body)];
    expect(second.activity.id).toBe(first.activity.id);
    expect(second.sendTransactionStatusId).toBe(first.sendTransactionStatusId);
    await included(first.sendTransactionStatusId);
    const rows = await server.services.db.query("SELECT id FROM send_transactions WHERE activity_id = $1", [first.activity.id]);
    expect(rows).toHaveLength(1);
  }, 120_000);

  it("reports BROADCASTING then INCLUDED to SEND_TRANSACTION_STATUS_UPDATES subscribers, in the documented shape", async () => {
    const receiver = await startWebhookReceiver();
    try {
      await root().createWebhookEndpoint({
        url: receiver.url,
        name: "transactions",
        subscriptions: [{ eventType: "SEND_TRANSACTION_STATUS_UPDATES", filtersJson: JSON.stringify({ networks: [CAIP2] }) }],
      } as never);
      const { sendTransactionStatusId, activity } = await root().ethSendTransaction({
        from,
        caip2: CAIP2,
        calls: [{ to: RECIPIENT, value: "9" }],
      });
      const final = await included(sendTransactionStatusId);
      const events = () =>
        receiver.received
          .map((d) => JSON.parse(d.body.toString()) as { type: string; msg: Record<string, unknown> })
          .filter((e) => e.msg.sendTransactionStatusId === sendTransactionStatusId);
      await receiver.until(() => events().length === 2);
      const [broadcasting, inclusion] = events();
      expect(broadcasting).toMatchObject({
        type: "transaction:status",
        organizationId: server.root.organizationId,
        parentOrganizationId: server.root.organizationId,
        msg: { sendTransactionStatusId, activityId: activity.id, status: "BROADCASTING", caip2: CAIP2 },
      });
      expect(inclusion!.msg).toMatchObject({ status: "INCLUDED", txHash: final.eth!.txHash });
      expect(inclusion!.msg.idempotencyKey).toMatch(/^[0-9a-f]{64}$/);
      expect(typeof inclusion!.msg.timestamp).toBe("number");
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it("sends a transaction signed elsewhere (eth_send_raw_transaction) and tracks it the same way", async () => {
    const outsider = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
    await anvil.rpc("anvil_setBalance", [outsider.address, `0x${parseEther("1").toString(16)}`]);
    const nonce = await chain.getTransactionCount({ address: outsider.address });
    const signed = await outsider.signTransaction({
      type: "eip1559", chainId: 84532, nonce, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n, to: RECIPIENT, value: 3n,
    }); // prettier-ignore
    const http = new TurnkeyClient(
      { baseUrl: server.url },
      new ApiKeyStamper({ apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! }),
    );
    const raw = (signedTransaction: string, caip2: string) =>
      http.ethSendRawTransaction({
        type: "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
        timestampMs: String(Date.now()),
        organizationId: server.root.organizationId,
        parameters: { signedTransaction, caip2: caip2 as never },
      });
    const refused = (request: Promise<unknown>) =>
      request.then(
        () => "accepted",
        (e: Error) => e.message,
      );
    const { activity } = await raw(signed, CAIP2);
    const transactionHash = activity.result.ethSendRawTransactionResult!.transactionHash;
    await until(
      () => chain.getTransactionReceipt({ hash: transactionHash as Hex }).catch(() => undefined),
      (r) => r !== undefined,
    );
    expect(await refused(raw(signed, "eip155:1"))).toContain("signed for eip155:84532, not eip155:1");
    const unsigned = serializeTransaction({ type: "eip1559", chainId: 84532, nonce: 0, to: RECIPIENT });
    expect(await refused(raw(unsigned, CAIP2))).toContain("signedTransaction:");
  }, 120_000);

  it("refuses precisely what it cannot do: sponsorship, several calls, a chain not configured", async () => {
    const call = { to: RECIPIENT, value: "1" };
    const sponsored = await refusal(root().ethSendTransaction({ from, caip2: CAIP2, sponsor: true, calls: [call] } as never));
    expect(sponsored.code).toBe(3);
    expect(sponsored.message).toContain("sponsor: gas sponsorship needs the hosted service's paymaster");
    const batch = await refusal(root().ethSendTransaction({ from, caip2: CAIP2, calls: [call, call] } as never));
    expect(batch.message).toContain("calls: 2 calls would need an EIP-7702 batch");
    const elsewhere = await refusal(root().ethSendTransaction({ from, caip2: "eip155:1", calls: [call] } as never));
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.message).toContain("chain eip155:1 is not configured on this server; add it to CHAIN_RPC_URLS");
    const stranger = await refusal(root().ethSendTransaction({ from: RECIPIENT, caip2: CAIP2, calls: [call] } as never));
    expect(stranger.message).toContain("from:");
    expect(await root().getGasUsage({})).toEqual({ windowDurationMinutes: 0, windowLimitUsd: "0", usageUsd: "0" });
    const gasStation = await refusal(root().getNonces({ address: from, caip2: CAIP2, gasStationNonce: true }));
    expect(gasStation.message).toContain("gasStationNonce:");
  }, 120_000);
  it("answers balances, supported assets and the history of what it sent, as the API shapes them", async () => {
    expect((await root().listSupportedAssets({ caip2: CAIP2 })).assets).toEqual([
      { caip19: `${CAIP2}/slip44:60`, symbol: "ETH", name: "Ethereum", decimals: 18 },
      { caip19: `${CAIP2}/erc20:${TOKEN}`, symbol: "TKN", name: "Test token", decimals: 2 },
    ]);
    const balances = (await root().getWalletAddressBalances({ address: from, caip2: CAIP2 })).balances!;
    const native = balances.find((b) => b.symbol === "ETH")!;
    expect(BigInt(native.balance!)).toBe(await chain.getBalance({ address: from }));
    const token = await chain.readContract({ address: TOKEN, abi: ERC20_ABI, functionName: "balanceOf", args: [from] });
    expect(balances.find((b) => b.symbol === "TKN")).toEqual({
      caip19: `${CAIP2}/erc20:${TOKEN}`,
      symbol: "TKN",
      name: "Test token",
      decimals: 2,
      balance: token.toString(),
      display: { crypto: (Number(token) / 100).toString() },
    });
    const first = await root().listEthTransactionHistory({ address: from, caip2: CAIP2, paginationOptions: { limit: "3" } });
    expect(first.transactions).toHaveLength(3);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const blocks = first.transactions.map((t) => BigInt(t.block.number));
    expect([...blocks].sort((a, b) => (a < b ? 1 : -1))).toEqual(blocks);
    for (const item of first.transactions) {
      const receipt = await chain.getTransactionReceipt({ hash: item.transactionHash as Hex });
      expect(item).toMatchObject({
        block: { number: receipt.blockNumber.toString(), hash: receipt.blockHash },
        origin: "TURNKEY",
        from: from.toLowerCase(),
        fee: { amount: (receipt.gasUsed * receipt.effectiveGasPrice).toString(), caip19: `${CAIP2}/slip44:60` },
        turnkey: { sponsored: false },
      });
    }
    const next = await root().listEthTransactionHistory({
      address: from,
      caip2: CAIP2,
      paginationOptions: { limit: "3", after: first.pageInfo!.endCursor! },
    });
    expect(next.transactions.map((t) => t.transactionHash)).not.toContain(first.transactions[2]!.transactionHash);
    expect(BigInt(next.transactions[0]!.block.number)).toBeLessThanOrEqual(blocks[2]!);
    // The ERC-20 transfer of the earlier test is there, decoded.
    const all = await root().listEthTransactionHistory({ address: from, caip2: CAIP2, paginationOptions: { limit: "100" } });
    expect(all.transactions.flatMap((t) => t.transfers)).toContainEqual({
      direction: "OUT",
      asset: { caip19: `${CAIP2}/erc20:${TOKEN}`, symbol: "TKN", name: "Test token", decimals: 2 },
      amount: "250",
      counterparty: RECIPIENT,
      display: { crypto: "2.5" },
    });
  }, 120_000);
});
