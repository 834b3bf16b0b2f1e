import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { embeddedEnv, initRoot, sdkClient, sharedPostgres } from "../helpers/cluster.js";
import { startServerProcess } from "../helpers/processes.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { createUserWithApiKey } from "../helpers/users.js";

const ETH = {
  curve: "CURVE_SECP256K1",
  pathFormat: "PATH_FORMAT_BIP32",
  path: "m/44'/60'/0'/0/0",
  addressFormat: "ADDRESS_FORMAT_ETHEREUM",
};

/**
 * A process killed while it prepares an activity (key derivation here; an outside call elsewhere) leaves its claim
 * on the body's fingerprint. The next process takes such a claim at once, as its holder's sessions are gone: the
 * same body completes, and an approval of an activity whose deciding vote was cut off executes it — where before
 * the body was answered 503 for a minute and the votes were blocked for 65 minutes. The kill lands mid-prepare
 * through STRONGROOM_TEST_HOLD_PREPARE (src/pipeline/steps/prepare.ts), a test-only switch.
 */
describe("the claim of a process that died during prepare", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("is taken over at once: the same body and the deciding vote succeed in the next process", { timeout: 600_000 }, async () => {
    let env: NodeJS.ProcessEnv;
    if (process.env.DATABASE_URL) {
      const database = await sharedPostgres();
      cleanups.push(database.drop);
      env = database.env;
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), "strongroom-dead-claim-"));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      env = embeddedEnv(dataDir);
    }
    const root = initRoot(env);
    const stamped = (body: string, key: { apiPublicKey: string; apiPrivateKey: string }) => ({
      "X-Stamp": p256Stamp(body, key.apiPublicKey, key.apiPrivateKey),
    });

    let held = 0;
    const holding = await startServerProcess({ ...env, STRONGROOM_TEST_HOLD_PREPARE: "ACTIVITY_TYPE_CREATE_WALLET" }, [], {
      onStderr: (text) => void (held += text.split("STRONGROOM_TEST_HOLD_PREPARE: holding").length - 1),
    });
    cleanups.push(() => holding.kill());
    const client = sdkClient(holding.url, root, root.organizationId);
    // A sub-organization anyone's body completes in at once (quorum 1), and a root quorum of two in the root organization.
    const { subOrganizationId } = await client.createSubOrganization({
      subOrganizationName: "quorum of one",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "root",
          apiKeys: [{ apiKeyName: "root", publicKey: root.apiPublicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const bob = await createUserWithApiKey(client, "bob");
    await client.updateRootQuorum({ threshold: 2, userIds: [root.userId, bob.userId] });

    // 1. A body whose preparation is under way when the process dies.
    const wallet = activityBody("ACTIVITY_TYPE_CREATE_WALLET", subOrganizationId, { walletName: "interrupted", accounts: [ETH] });
    const cutOff = post(`${holding.url}/public/v1/submit/create_wallet`, wallet, stamped(wallet, root)).catch((error: unknown) => error);
    await vi.waitFor(() => expect(held).toBe(1), { timeout: 60_000, interval: 50 });

    // 2. An activity waiting for consensus, whose deciding approval is being prepared when the process dies.
    const waiting = activityBody("ACTIVITY_TYPE_CREATE_WALLET", root.organizationId, { walletName: "by consensus", accounts: [ETH] });
    const submitted = await post(`${holding.url}/public/v1/submit/create_wallet`, waiting, stamped(waiting, root));
    const activity = submitted.json.activity as { id: string; fingerprint: string; status: string };
    expect(activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const approval = activityBody("ACTIVITY_TYPE_APPROVE_ACTIVITY", root.organizationId, { fingerprint: activity.fingerprint });
    const approvalCutOff = post(`${holding.url}/public/v1/submit/approve_activity`, approval, stamped(approval, bob.credentials)).catch(
      (error: unknown) => error,
    );
    await vi.waitFor(() => expect(held).toBe(2), { timeout: 60_000, interval: 50 });

    await holding.kill();
    expect(String(await cutOff)).toMatch(/fetch failed|terminated|socket/i);
    expect(String(await approvalCutOff)).toMatch(/fetch failed|terminated|socket/i);
    const next = await startServerProcess(env);
    cleanups.push(() => next.kill());

    // Before, both were 503 UNAVAILABLE after a minute's wait ("still being prepared (or was interrupted)").
    const again = await post(`${next.url}/public/v1/submit/create_wallet`, wallet, stamped(wallet, root));
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    const completed = again.json.activity as { status: string; result: { createWalletResult: { addresses: string[] } } };
    expect(completed.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(completed.result.createWalletResult.addresses).toHaveLength(1);

    const approved = await post(`${next.url}/public/v1/submit/approve_activity`, approval, stamped(approval, bob.credentials));
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect((approved.json.activity as { id: string; status: string }).id).toBe(activity.id);
    expect((approved.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
    const { wallets } = await sdkClient(next.url, root, root.organizationId).getWallets({});
    expect(wallets.map((w) => w.walletName)).toContain("by consensus");
  });
});
