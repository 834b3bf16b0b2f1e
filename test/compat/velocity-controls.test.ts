import type { TurnkeyClient } from "@turnkey/http";
import { encodeFunctionData, erc20Abi, parseEther, serializeTransaction, type TransactionSerializable } from "viem";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";
import { controlIntent, createControl, httpClient, refused as refusal } from "../helpers/velocity-controls.js";

const ETH = { caip19: "eip155:1/slip44:60", decimals: "18" };
const USDC_ADDRESS = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
const USDC = { caip19: `eip155:1/erc20:${USDC_ADDRESS}`, decimals: "6" };
const RECIPIENT = "0x2222222222222222222222222222222222222222";

let nonce = 0;
function ethTransfer(value: bigint, chainId = 1, extra: Partial<TransactionSerializable> = {}): string {
  return serializeTransaction({
    type: "eip1559",
    chainId,
    nonce: nonce++,
    to: RECIPIENT,
    value,
    gas: 21000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
    ...extra,
  } as TransactionSerializable).slice(2);
}
const usdcCall = (data: `0x${string}`) => ethTransfer(0n, 1, { to: USDC_ADDRESS, data, gas: 90000n });

describe("velocity controls through the unchanged SDK", () => {
  let server: TestServer;
  let root: TurnkeyClient;
  /** How far the test moved the server's clock past real time. */
  let aheadMs = 0;
  let walletA: { id: string; eth: string };
  let walletB: { id: string; eth: string };

  /** A non-root user allowed by one policy whose condition is `condition` (and only for them). */
  async function agent(name: string, condition: string, consensus?: string) {
    const user = await createUserWithApiKey(server.client(), name);
    await server.client().createPolicy({
      policyName: `${name} policy`,
      effect: "EFFECT_ALLOW",
      condition,
      consensus: consensus ?? `approvers.any(user, user.id == '${user.userId}')`,
      notes: "",
    });
    return { ...user, sdk: server.client(user.credentials), http: httpClient(server.url, user.credentials) };
  }
  const signEth = (client: ReturnType<TestServer["client"]>, unsignedTransaction: string, signWith = walletA.eth) =>
    client.signTransaction({ signWith, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" });
  let payloads = 0;
  const signRaw = (client: ReturnType<TestServer["client"]>, signWith = walletA.eth) =>
    client.signRawPayload({
      signWith,
      payload: (++payloads).toString(16).padStart(64, "0"),
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
    });
  const control = (intent: Parameters<typeof createControl>[2]) => createControl(root, server.root.organizationId, intent);
  async function newWallet(name: string) {
    const { walletId, addresses } = await server.client().createWallet({
      walletName: name,
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    return { id: walletId, eth: addresses[0]! };
  }

  // A server of its own for each test: another test's policies would make a refused request wait for consensus.
  beforeEach(async () => {
    aheadMs = 0;
    server = await startTestServer({ clock: () => new Date(Date.now() + aheadMs) });
    root = httpClient(server.url, { apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! });
    walletA = await newWallet("A");
    walletB = await newWallet("B");
  }, 60_000);
  afterEach(async () => server.close());

  it("creates, gets, lists and deletes a control with the exact activity types and result keys", async () => {
    const intent = controlIntent("listed_cap", { chainAssetTransfer: { definition: [ETH, USDC] } }, { threshold: "1.5", seconds: 86400 });
    const { activity } = await root.createVelocityControl({
      type: "ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL",
      timestampMs: String(Date.now()),
      organizationId: server.root.organizationId,
      parameters: intent,
    });
    expect(activity.type).toBe("ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL");
    expect(activity.intent.createVelocityControlIntent).toEqual(intent);
    const id = activity.result.createVelocityControlResult!.velocityControlId;
    const { velocityControl } = await root.getVelocityControl({ organizationId: server.root.organizationId, velocityControlId: id });
    expect(velocityControl).toMatchObject({
      velocityControlId: id,
      organizationId: server.root.organizationId,
      identifier: "listed_cap",
      name: "listed_cap",
      aggregation: intent.aggregation,
      dataSource: { chainAssetTransfer: { definition: [ETH, USDC], phase: { signature: {} } } },
    });
    const listed = await root.listVelocityControls({ organizationId: server.root.organizationId });
    expect(listed.velocityControls.map((c) => c.velocityControlId)).toContain(id);
    expect(listed.pageInfo.hasPreviousPage).toBe(false);
    const deleted = await root.deleteVelocityControl({
      type: "ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL",
      timestampMs: String(Date.now()),
      organizationId: server.root.organizationId,
      parameters: { velocityControlId: id },
    });
    expect(deleted.activity.result.deleteVelocityControlResult).toEqual({ velocityControlId: id });
    const gone = await refusal(root.getVelocityControl({ organizationId: server.root.organizationId, velocityControlId: id }));
    expect(gone.message).toContain(`no velocity control "${id}"`);
  });

  it("refuses a control it cannot evaluate, naming the field, and creates nothing", async () => {
    const cases: Array<[Parameters<typeof control>[0], string]> = [
      [
        controlIntent(
          "bad1",
          { chainAssetTransfer: { definition: [{ caip19: "bip122:000000000019d6689c085ae165831e93/slip44:0", decimals: "8" }] } },
          { threshold: "1" },
        ),
        "transfers on bip122 chains are not measured",
      ],
      [controlIntent("bad2", { chainAssetTransfer: { definition: [{ ...ETH, decimals: "256" }] } }, { threshold: "1" }), "decimals"],
      [controlIntent("bad3", { chainAssetTransfer: { definition: [ETH] } }, { threshold: "0.1234567890123456789" }), "at most 18"],
      [controlIntent("bad4", { chainAssetTransfer: { definition: [ETH] } }, { threshold: "1".repeat(39) }), "at most 38"],
      [
        controlIntent(
          "bad5",
          { activityExecution: { filter: { activity: [{ activityType: "ACTIVITY_TYPE_SIGN_RAW_PAYLAOD" }] } } },
          { threshold: "1" },
        ),
        "not an activity type of the API",
      ],
      [controlIntent("bad6", {}, { threshold: "1" }), "set exactly one of chainAssetTransfer, activityExecution"],
      [controlIntent("bad-7", { activityExecution: {} }, { threshold: "1" }), "is not an identifier"],
      [controlIntent("bad8", { activityExecution: {} }, { threshold: "1e3" }), "not a non-negative base-10 decimal"],
    ];
    for (const [intent, message] of cases) {
      const error = await refusal(control(intent));
      expect(error.code, message).toBe(3);
      expect(error.message).toContain(message);
    }
    const { velocityControls } = await root.listVelocityControls({ organizationId: server.root.organizationId });
    expect(velocityControls.filter((c) => c.identifier.startsWith("bad"))).toEqual([]);
    await control(controlIntent("twice", { activityExecution: {} }, { threshold: "1" }));
    const again = await root.createVelocityControl({
      type: "ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL",
      timestampMs: String(Date.now()),
      organizationId: server.root.organizationId,
      parameters: controlIntent("twice", { activityExecution: {} }, { threshold: "2" }),
    });
    expect(again.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(again.activity.failure?.message).toContain('"twice" is already velocity control');
  });

  it("holds a daily ETH cap per user on sign_transaction: under it passes, the crossing transfer is denied", async () => {
    await control(controlIntent("daily_eth", { chainAssetTransfer: { definition: [ETH] } }, { threshold: "1", seconds: 86_400 }));
    const alice = await agent("alice", "controls.daily_eth");
    await signEth(alice.sdk, ethTransfer(parseEther("0.4")));
    // The dry run shows the aggregate so far and what this transfer would add, and changes nothing.
    const next = ethTransfer(parseEther("0.5"));
    const dry = (await alice.http.request("/strongroom/v1/query/dry_run_activity", {
      organizationId: server.root.organizationId,
      activity: {
        type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        parameters: { signWith: walletA.eth, unsignedTransaction: next, type: "TRANSACTION_TYPE_ETHEREUM" },
      },
    })) as { outcome: string; controls: unknown[] };
    expect(dry.outcome).toBe("ALLOW");
    expect(dry.controls).toEqual([
      expect.objectContaining({ identifier: "daily_eth", current: "0.4", adds: "0.5", threshold: "1", holds: true }),
    ]);
    await signEth(alice.sdk, next);
    const denied = await refusal(signEth(alice.sdk, ethTransfer(parseEther("0.2"))));
    expect(denied.code).toBe(7);
    // Another chain's coin is not the listed asset: it adds nothing.
    await signEth(alice.sdk, ethTransfer(parseEther("5"), 137));
    // Exactly the cap (0.9 + 0.1 = 1, LESS_THAN_OR_EQUAL) passes; then even a wei is denied.
    await signEth(alice.sdk, ethTransfer(parseEther("0.1")));
    await refusal(signEth(alice.sdk, ethTransfer(1n)));
    // Per user: bob has a bucket of his own.
    const bob = await agent("bob", "controls.daily_eth");
    await signEth(bob.sdk, ethTransfer(parseEther("1")));
  });

  it("holds an ERC-20 cap in token units with 6 decimals (transfer and transferFrom)", async () => {
    await control(controlIntent("usdc_cap", { chainAssetTransfer: { definition: [USDC] } }, { threshold: "100.5", seconds: 86_400 }));
    const carol = await agent("carol", "controls.usdc_cap");
    await signEth(carol.sdk, usdcCall(encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [RECIPIENT, 100_000_000n] })));
    await signEth(
      carol.sdk,
      usdcCall(encodeFunctionData({ abi: erc20Abi, functionName: "transferFrom", args: [RECIPIENT, RECIPIENT, 500_000n] })),
    );
    await refusal(signEth(carol.sdk, usdcCall(encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [RECIPIENT, 1n] }))));
    // ETH is not the listed token, and approve moves nothing.
    await signEth(carol.sdk, ethTransfer(parseEther("3")));
    await signEth(carol.sdk, usdcCall(encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [RECIPIENT, 10n ** 12n] })));
  });

  it("limits the count of ACTIVITY_TYPE_SIGN_RAW_PAYLOAD executions (any version)", async () => {
    await control(
      controlIntent(
        "three_raw",
        { activityExecution: { filter: { activity: [{ activityType: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD" }] } } },
        { method: "COUNT", threshold: "3" },
      ),
    );
    const dave = await agent("dave", "controls.three_raw");
    for (let i = 0; i < 3; i++) await signRaw(dave.sdk);
    expect((await refusal(signRaw(dave.sdk))).code).toBe(7);
    // Other activity types are no data point of it.
    await signEth(dave.sdk, ethTransfer(1n));
  });

  it("groups by wallet: each wallet has its own bucket", async () => {
    await control(controlIntent("one_per_wallet", { activityExecution: {} }, { method: "COUNT", threshold: "1", groupBy: "wallet" }));
    const erin = await agent("erin", "controls.one_per_wallet");
    await signRaw(erin.sdk, walletA.eth);
    await refusal(signRaw(erin.sdk, walletA.eth));
    await signRaw(erin.sdk, walletB.eth);
    await refusal(signRaw(erin.sdk, walletB.eth));
  });

  it("rolls its window with the server's clock", async () => {
    await control(controlIntent("one_a_minute", { activityExecution: {} }, { method: "COUNT", threshold: "1", seconds: 60 }));
    const frank = await agent("frank", "controls.one_a_minute");
    await signRaw(frank.sdk);
    await refusal(signRaw(frank.sdk));
    aheadMs += 59_000;
    await refusal(signRaw(frank.sdk));
    aheadMs += 2_000;
    await signRaw(frank.sdk);
    await refusal(signRaw(frank.sdk));
  });

  it("lets exactly 5 of 20 concurrent requests through a cap that fits 5", async () => {
    await control(controlIntent("five", { activityExecution: {} }, { method: "COUNT", threshold: "5" }));
    const grace = await agent("grace", "controls.five");
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => signRaw(grace.sdk)));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(5);
    for (const o of outcomes) if (o.status === "rejected") expect((o.reason as { code: number }).code).toBe(7);
  }, 60_000);

  it("counts an activity waiting for consensus only once it executes; the deciding approval decides again", async () => {
    await control(controlIntent("one_approved", { activityExecution: {} }, { method: "COUNT", threshold: "1" }));
    const approver = await createUserWithApiKey(server.client(), "approver");
    const heidi = await agent(
      "heidi",
      "controls.one_approved",
      `approvers.count() >= 2 && approvers.any(user, user.id == '${approver.userId}')`,
    );
    const submit = (payload: string) =>
      heidi.http.signRawPayload({
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        timestampMs: String(Date.now()),
        organizationId: server.root.organizationId,
        parameters: { signWith: walletA.eth, payload, encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" },
      });
    const first = (await submit("aa".repeat(32))).activity;
    const second = (await submit("bb".repeat(32))).activity;
    // Both wait: the first, waiting, added nothing.
    expect([first.status, second.status]).toEqual(["ACTIVITY_STATUS_CONSENSUS_NEEDED", "ACTIVITY_STATUS_CONSENSUS_NEEDED"]);
    const approve = (fingerprint: string) =>
      httpClient(server.url, approver.credentials).approveActivity({
        type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        timestampMs: String(Date.now()),
        organizationId: server.root.organizationId,
        parameters: { fingerprint },
      });
    expect((await approve(first.fingerprint)).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const decided = (await approve(second.fingerprint)).activity;
    expect(decided.status).not.toBe("ACTIVITY_STATUS_COMPLETED");
    expect(decided.status).not.toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
  });

  it("makes the policies naming a deleted control fail: an allow no longer allows, a deny denies", async () => {
    const id = await control(controlIntent("doomed", { activityExecution: {} }, { method: "COUNT", threshold: "100" }));
    const ivan = await agent("ivan", "controls.doomed");
    await signRaw(ivan.sdk);
    await root.deleteVelocityControl({
      type: "ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL",
      timestampMs: String(Date.now()),
      organizationId: server.root.organizationId,
      parameters: { velocityControlId: id },
    });
    expect((await refusal(signRaw(ivan.sdk))).message).toContain("implicit deny");
    // A deny policy naming a control that is gone denies (fails closed), even next to an allow.
    const judy = await agent("judy", "true");
    await signRaw(judy.sdk);
    await server.client().createPolicy({ policyName: "deny on doomed", effect: "EFFECT_DENY", condition: "controls.doomed", notes: "" });
    expect((await refusal(signRaw(judy.sdk))).message).toContain("names a velocity control the organization does not have");
  });

  it.skipIf(!process.env.DATABASE_URL)(
    "a control deleted while an activity is decided on it: the activity is decided again without it (denied), not a 500",
    async () => {
      const id = await control(controlIntent("vanishing", { activityExecution: {} }, { method: "COUNT", threshold: "100" }));
      const kim = await agent("kim", "controls.vanishing");
      // Another connection deletes the control and holds its transaction open; kim's request decides on the
      // control (still visible to it) and waits on the row to create her bucket; then the delete commits.
      let signing: Promise<unknown> | undefined;
      await server.services.db.transaction(async (tx) => {
        await tx.query("DELETE FROM velocity_controls WHERE id = $1", [id]);
        signing = signRaw(kim.sdk).then(
          () => "signed",
          (error: unknown) => error,
        );
        for (let i = 0; i < 500; i++) {
          const [waiting] = await server.services.db.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
          );
          if (waiting && waiting.n !== "0") return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error("kim's activity never waited on the control being deleted");
      });
      const outcome = (await signing) as { code?: number; message?: string };
      expect(outcome).not.toBe("signed");
      expect(outcome.code).toBe(7);
      expect(outcome.message).toContain("implicit deny");
    },
    60_000,
  );
});
