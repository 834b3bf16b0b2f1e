import type { OAuth2Server } from "oauth2-mock-server";
import type { Page, Request, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium } from "./harness.js";
import { authState, inKit, openKitApp, startKitWorld, waitForAuthenticated, type KitWorld } from "./kit-setup.js";
import { startOidcProvider } from "../helpers/oidc-provider.js";

const CLIENT_ID = "browser-test-client";
const GOOGLE_AUTHORIZE = "https://accounts.google.com/o/oauth2/v2/auth";
const SUBJECT = "google-user-7";

/**
 * OAuth with the wallet kit's own Google popup (`handleGoogleOauth`, what its "Continue with Google" button calls).
 * The popup's requests to accounts.google.com are answered by a route standing in for Google: the local OIDC
 * provider (oauth2-mock-server, an OIDC_ISSUERS issuer) signs an ID token for the nonce the kit asked for, and the
 * route redirects to the kit's redirect URI with `#state=…&id_token=…` as Google's implicit flow does. The kit reads
 * the token from the popup, closes it, and completes signup and login by itself.
 */
describe.skipIf(!hasChromium)(
  "OAuth signup and login through the wallet kit's Google popup in Chromium (routed to a local OIDC provider)",
  () => {
    let provider: OAuth2Server;
    let world: KitWorld;
    let page: Page;
    let redirectUri: string;
    /** The authorization requests the route answered, and every URL off loopback the browser asked for. */
    const authorizations: URLSearchParams[] = [];
    const answered = new Set<string>();
    const offLoopback: string[] = [];
    /** The nonce the provider binds the token to, given the one the kit asked for (a test swaps it to break the binding). */
    let issuedNonce = (requested: string) => requested;

    /** Google's authorization endpoint, played by the local provider: a redirect carrying the ID token in the fragment. */
    async function answerGoogle(route: Route): Promise<void> {
      const url = new URL(route.request().url());
      answered.add(url.href);
      if (`${url.origin}${url.pathname}` !== GOOGLE_AUTHORIZE) return route.fulfill({ status: 404, body: "" });
      const query = url.searchParams;
      authorizations.push(query);
      try {
        const nonce = issuedNonce(query.get("nonce") ?? "");
        const idToken = await provider.issuer.buildToken({
          scopesOrTransform: (_header, payload) =>
            Object.assign(payload, {
              aud: query.get("client_id"),
              sub: SUBJECT,
              nonce,
              email: `${SUBJECT}@example.com`,
              email_verified: true,
            }),
        });
        const fragment = new URLSearchParams({ state: query.get("state") ?? "", id_token: idToken, authuser: "0", prompt: "none" });
        await route.fulfill({ status: 302, headers: { location: `${query.get("redirect_uri")}#${fragment}` } });
      } catch (error) {
        await route.fulfill({ status: 500, body: `the local provider failed: ${String(error)}` });
      }
    }

    beforeAll(async () => {
      let issuer: string;
      ({ provider, issuer } = await startOidcProvider());
      world = await startKitWorld({
        env: { OIDC_ISSUERS: issuer },
        // The kit takes its Google client id and redirect URI from the auth proxy's wallet kit settings.
        settings: (siteOrigin) => ({
          walletKitSettings: {
            enabledSocialProviders: ["google"],
            oauthClientIds: { google: CLIENT_ID },
            oauthRedirectUrl: (redirectUri = `${siteOrigin}/oauth-callback.html`),
          },
        }),
      });
      const context = world.browser.context;
      context.on("request", (request) => {
        const { protocol, hostname } = new URL(request.url());
        if (["http:", "https:"].includes(protocol) && !["localhost", "127.0.0.1"].includes(hostname)) offLoopback.push(request.url());
      });
      await context.route("https://accounts.google.com/**", answerGoogle);
      page = await openKitApp(world, { authenticator: false });
    }, 180_000);
    afterAll(async () => {
      // Every request that left loopback was one to accounts.google.com that the route answered.
      expect(offLoopback.filter((url) => !answered.has(url))).toEqual([]);
      await world?.close();
      await provider?.stop();
    });

    /**
     * Runs the kit's Google popup flow to its end (the popup must have been closed by the kit); returns the auth
     * proxy endpoints the kit called meanwhile.
     */
    async function continueWithGoogle(): Promise<string[]> {
      const calls: string[] = [];
      const record = (request: Request) => {
        if (request.url().startsWith(world.server.authProxyUrl)) calls.push(new URL(request.url()).pathname);
      };
      page.on("request", record);
      try {
        const popup = page.waitForEvent("popup");
        await inKit(page, (kit) => kit.handleGoogleOauth());
        const window = await popup;
        if (!window.isClosed()) await window.waitForEvent("close");
        return calls;
      } finally {
        page.off("request", record);
      }
    }

    it("signs up through the popup, then logs out and logs back in through it as the same user", async () => {
      const before = authorizations.length;
      expect(await continueWithGoogle()).toContain("/v1/signup_v2");
      await waitForAuthenticated(page);
      await page.getByTestId("wallets").locator("li").first().waitFor();
      const { userId, organizationId } = await inKit(page, async (kit) => kit.session!);
      expect(organizationId).not.toBe(world.server.root.organizationId);

      await inKit(page, (kit) => kit.logout());
      await page.getByTestId("auth-state").filter({ hasText: "unauthenticated" }).waitFor();
      expect(await continueWithGoogle()).not.toContain("/v1/signup_v2");
      await waitForAuthenticated(page);
      expect(await inKit(page, async (kit) => kit.session!)).toMatchObject({ userId, organizationId });

      // What the kit asked Google for, twice: an ID token for our client, bound to a fresh key's nonce each time.
      const asked = authorizations.slice(before);
      expect(asked).toHaveLength(2);
      for (const query of asked) {
        expect(Object.fromEntries(query)).toMatchObject({ client_id: CLIENT_ID, redirect_uri: redirectUri, response_type: "id_token" });
        expect(query.get("nonce")).toMatch(/^[0-9a-f]{64}$/);
      }
      expect(asked[0]!.get("nonce")).not.toBe(asked[1]!.get("nonce"));
      expect(offLoopback.length).toBeGreaterThanOrEqual(2);
      expect(offLoopback.filter((url) => !answered.has(url))).toEqual([]);
    });

    it("refuses a returning user's ID token bound to another nonce than the popup's key, and the user stays logged out", async () => {
      if ((await authState(page)) === "authenticated") await inKit(page, (kit) => kit.logout());
      await page.getByTestId("auth-state").filter({ hasText: "unauthenticated" }).waitFor();
      // The first hex digit changed: a token the provider issued for some other key.
      issuedNonce = (requested) => requested.replace(/^./, (c) => (c === "0" ? "1" : "0"));
      const login = page.waitForResponse((response) => response.url().endsWith("/public/v1/submit/stamp_login"));
      try {
        await expect(continueWithGoogle()).rejects.toThrow(/Failed to complete OAuth/);
      } finally {
        issuedNonce = (requested) => requested;
      }
      const refusal = await login;
      expect(refusal.status()).toBe(401);
      expect(await refusal.text()).toMatch(/nonce .* is not hex\(sha256\(publicKey\)\)/);
      expect(await authState(page)).toBe("unauthenticated");
    });
  },
);
