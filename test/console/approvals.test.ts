import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitAsRoot } from "../helpers/auth-proxy.js";
import {
  goTo,
  hasChromium,
  openConsole,
  saveConsoleScreenshot,
  signInWithPasskey,
  startConsoleWorld,
  type ConsoleWorld,
} from "./harness.js";

/** A passkey made by Chromium's virtual authenticator on the console's origin, as create_users takes it. */
async function passkeyAttestation(page: Page, userName: string) {
  const challenge = randomBytes(32).toString("base64url");
  const attestation = await page.evaluate(
    async ({ challenge, userName }) => {
      const b64url = (bytes: ArrayBuffer) =>
        btoa(String.fromCharCode(...new Uint8Array(bytes)))
          .replace(/\+/g, "-")
          .replace(/\//g, "_")
          .replace(/=+$/, "");
      const fromB64url = (text: string) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
      const credential = (await navigator.credentials.create({
        publicKey: {
          rp: { id: window.location.hostname, name: "Strongroom" },
          user: { id: crypto.getRandomValues(new Uint8Array(16)), name: userName, displayName: userName },
          challenge: fromB64url(challenge),
          pubKeyCredParams: [{ type: "public-key", alg: -7 }],
          authenticatorSelection: { residentKey: "required", userVerification: "required" },
        },
      })) as PublicKeyCredential;
      const response = credential.response as AuthenticatorAttestationResponse;
      return {
        credentialId: b64url(credential.rawId),
        clientDataJson: b64url(response.clientDataJSON),
        attestationObject: b64url(response.attestationObject),
        transports: ["AUTHENTICATOR_TRANSPORT_INTERNAL"],
      };
    },
    { challenge, userName },
  );
  return { challenge, attestation };
}

/**
 * The console's approvals inbox in Chromium: a user with a passkey signs in with it, sees what another user asked
 * for through the SDK and waits for their consensus, approves one (it completes, with its result) and rejects
 * another — each vote stamped by the passkey.
 */
describe.skipIf(!hasChromium)("console approvals: sign in with a passkey, approve and reject with it", () => {
  let world: ConsoleWorld;
  let page: Page;
  let requester: TurnkeyClient;
  let approverId: string;
  const offLoopback: string[] = [];

  beforeAll(async () => {
    world = await startConsoleWorld();
    world.browser.context.on("request", (request) => {
      if (!/^http:\/\/(localhost|127\.0\.0\.1):\d+\//.test(request.url())) offLoopback.push(request.url());
    });
    page = await openConsole(world);
    const approverPasskey = await passkeyAttestation(page, "Ana approver");
    const requesterKey = generateP256KeyPair();
    const created = await submitAsRoot(world.server, "create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", {
      users: [
        {
          userName: "Ana approver",
          apiKeys: [],
          authenticators: [{ authenticatorName: "Ana's laptop", ...approverPasskey }],
          oauthProviders: [],
          userTags: [],
        },
        {
          userName: "Rui requester",
          apiKeys: [{ apiKeyName: "script", publicKey: requesterKey.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    expect(created.status, JSON.stringify(created.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    approverId = (created.result.createUsersResult!.userIds as string[])[0]!;
    const policy = await submitAsRoot(world.server, "create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", {
      policyName: "Wallets need Ana",
      effect: "EFFECT_ALLOW",
      condition: "activity.resource == 'WALLET' && activity.action == 'CREATE'",
      consensus: `approvers.any(user, user.id == '${approverId}')`,
      notes: "",
    });
    expect(policy.status, JSON.stringify(policy.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    requester = new TurnkeyClient(
      { baseUrl: world.server.url },
      new ApiKeyStamper({ apiPublicKey: requesterKey.publicKey, apiPrivateKey: requesterKey.privateKey }),
    );
  }, 120_000);
  afterAll(async () => world?.close());

  /** Rui asks for a wallet through the SDK; it waits for Ana. */
  async function requestWallet(walletName: string) {
    const { activity } = await requester.createWallet({
      type: "ACTIVITY_TYPE_CREATE_WALLET",
      timestampMs: String(Date.now()),
      organizationId: world.server.root.organizationId,
      parameters: {
        walletName,
        accounts: [
          { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
        ],
      },
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    return activity.id;
  }

  const getActivity = (activityId: string) => requester.getActivity({ organizationId: world.server.root.organizationId, activityId });
  const activityStatus = async (activityId: string) => (await getActivity(activityId)).activity.status;

  it("signs in with the passkey and shows a pending activity readably, with who asked and the votes so far", async () => {
    const activityId = await requestWallet("Treasury");
    await signInWithPasskey(page, world.server.root.organizationId);
    await goTo(page, "Approvals");
    const card = page.getByTestId("pending-activity").filter({ hasText: activityId });
    await card.waitFor();
    await expect.poll(() => card.textContent()).toContain("Create wallet");
    const text = (await card.textContent())!;
    expect(text).toContain("Treasury");
    expect(text).toContain("by Rui requester");
    expect(text).toContain("Approved by Rui requester");
    expect(text).toContain("Approvals lapse");
    // Why the policy asks for Ana: its condition and consensus, beside its outcome (the policies load on their own).
    await expect
      .poll(() => card.textContent())
      .toContain(
        `Wallets need Ana: requires_consensuswhenactivity.resource == 'WALLET' && activity.action == 'CREATE'approved byapprovers.any(user, user.id == '${approverId}')`,
      );
    await saveConsoleScreenshot(page, "approvals");
  });

  it("approves with the passkey: the activity completes and its result is shown", async () => {
    const card = page.getByTestId("pending-activity").filter({ hasText: "Treasury" });
    await card.getByRole("button", { name: "Approve" }).click();
    const decided = page.getByTestId("decided-activity").filter({ hasText: "Treasury" });
    await decided.waitFor();
    await expect.poll(() => decided.textContent()).toContain("completed");
    expect(await decided.textContent()).toContain("walletId");
    const activityId = (await decided
      .locator("code")
      .filter({ hasText: /^[0-9a-f-]{36}$/ })
      .first()
      .textContent())!;
    expect(await activityStatus(activityId)).toBe("ACTIVITY_STATUS_COMPLETED");
    const votes = (await getActivity(activityId)).activity.votes;
    expect(votes.map((v) => [v.userId, v.selection, v.scheme])).toContainEqual([
      approverId,
      "VOTE_SELECTION_APPROVED",
      "SIGNATURE_SCHEME_TK_API_WEBAUTHN",
    ]);
  });

  it("rejects another with the passkey: the activity is rejected and nothing is created", async () => {
    const activityId = await requestWallet("Side project");
    await page.getByRole("button", { name: "Refresh" }).click();
    const card = page.getByTestId("pending-activity").filter({ hasText: activityId });
    await card.getByRole("button", { name: "Reject" }).click();
    await page.getByTestId("decided-activity").filter({ hasText: activityId }).filter({ hasText: "rejected" }).waitFor();
    expect(await activityStatus(activityId)).toBe("ACTIVITY_STATUS_REJECTED");
    const wallets = await requester.getWallets({ organizationId: world.server.root.organizationId });
    expect(wallets.wallets.map((w) => w.walletName)).not.toContain("Side project");
    await expect.poll(() => page.getByTestId("pending-activity").count()).toBe(0);
  });

  it("lists both in the activity log, filtered by status, with the detail of each — reached with the keyboard", async () => {
    // From the last button pressed, forward through the page (each activity's "request as JSON" is a stop) and round to the navigation.
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press("Tab");
      if ((await page.evaluate(() => document.activeElement?.textContent)) === "Activity log") break;
    }
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Activity log" }).waitFor();
    await page.getByLabel("Status").selectOption("ACTIVITY_STATUS_REJECTED");
    const rows = page.locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(1);
    await rows.first().getByRole("link").click();
    await page.getByText("Rejected by Ana approver").waitFor();
    await saveConsoleScreenshot(page, "activity");
  });

  it("made no request off this machine", () => {
    expect(offLoopback).toEqual([]);
  });
});
