import { createHash } from "node:crypto";
import { OAuth2Server } from "oauth2-mock-server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium } from "./harness.js";
import { inKit, openKitApp, startKitWorld, type KitWorld } from "./kit-setup.js";

const CLIENT_ID = "browser-test-client";

/**
 * OAuth with the wallet kit: the ID token comes from a real OIDC provider on loopback (oauth2-mock-server) with the
 * nonce the kit binds to its key (what the provider's popup would return); the kit completes signup and login.
 */
describe.skipIf(!hasChromium)("OAuth signup and login with the wallet kit in Chromium (completeOauth with a local OIDC provider)", () => {
  let provider: OAuth2Server;
  let world: KitWorld;
  let page: Page;

  beforeAll(async () => {
    provider = new OAuth2Server();
    await provider.issuer.keys.generate("ES256");
    await provider.start(0, "127.0.0.1");
    const issuer = `http://127.0.0.1:${provider.address().port}`;
    provider.issuer.url = issuer;
    world = await startKitWorld({
      env: { OIDC_ISSUERS: issuer },
      settings: { walletKitSettings: { enabledSocialProviders: ["google"], oauthClientIds: { google: CLIENT_ID } } },
    });
    page = await openKitApp(world, { authenticator: false });
  }, 180_000);
  afterAll(async () => {
    await world?.close();
    await provider?.stop();
  });

  /** A key pair made by the kit, and an ID token for `sub` whose nonce is sha256(publicKey) as the kit's popup asks. */
  async function tokenFor(sub: string) {
    const publicKey = await inKit(page, (kit) => kit.createApiKeyPair());
    const nonce = createHash("sha256").update(publicKey).digest("hex");
    const oidcToken = await provider.issuer.buildToken({
      scopesOrTransform: (_header, payload) => Object.assign(payload, { aud: CLIENT_ID, sub, nonce, email: `${sub}@example.com` }),
    });
    return { oidcToken, publicKey, providerName: "google" };
  }

  it("signs up with an ID token, then logs out and logs back in with a new one as the same user", async () => {
    await inKit(page, (kit, params) => kit.completeOauth(params), await tokenFor("google-user-7"));
    await page
      .getByTestId("auth-state")
      .filter({ hasText: /^authenticated$/ })
      .waitFor();
    await page.getByTestId("wallets").locator("li").first().waitFor();
    const { userId, organizationId } = await inKit(page, async (kit) => kit.session!);
    expect(organizationId).not.toBe(world.server.root.organizationId);

    await inKit(page, (kit) => kit.logout());
    await page.getByTestId("auth-state").filter({ hasText: "unauthenticated" }).waitFor();
    await inKit(page, (kit, params) => kit.completeOauth(params), await tokenFor("google-user-7"));
    await page
      .getByTestId("auth-state")
      .filter({ hasText: /^authenticated$/ })
      .waitFor();
    expect(await inKit(page, async (kit) => kit.session!)).toMatchObject({ userId, organizationId });
  });
});
