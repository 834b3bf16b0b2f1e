import type { Page } from "playwright-core";
import { expect } from "vitest";
import { submitAsRoot } from "../helpers/auth-proxy.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { AppConfig } from "./app/app-config.js";
import { addVirtualAuthenticator, buildTestApp, launchBrowser, serveApp, type Browser, type StaticSite } from "./harness.js";

export interface KitWorld {
  server: TestServer;
  site: StaticSite;
  browser: Browser;
  configId: string;
  appConfig: AppConfig;
  close(): Promise<void>;
}

/**
 * A Strongroom test server with its auth proxy enabled for the app's origin, the test app built against the
 * server's keys and served on loopback, and a fresh Chromium.
 */
export async function startKitWorld(
  options: {
    env?: Record<string, string>;
    /** update_auth_proxy_config's parameters, or a function of the app's origin (for settings that name it). */
    settings?: Record<string, unknown> | ((siteOrigin: string) => Record<string, unknown>);
    extraConfig?: Partial<AppConfig>;
  } = {},
): Promise<KitWorld> {
  const server = await startTestServer({ env: options.env });
  const dir = await buildTestApp(server.url);
  // The site's origin goes into the auth proxy config, whose id goes into the app's config: served once known.
  const served: { config?: AppConfig } = {};
  const site = await serveApp(dir, () => served.config!);
  const enabled = await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
  expect(enabled.status).toBe("ACTIVITY_STATUS_COMPLETED");
  const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
    allowedOrigins: [site.origin],
    sessionExpirationSeconds: 900,
    ...(typeof options.settings === "function" ? options.settings(site.origin) : options.settings),
  });
  expect(updated.status, JSON.stringify(updated.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
  const configId = updated.result.updateAuthProxyConfigResult!.configId as string;
  const appConfig: AppConfig = {
    apiBaseUrl: server.url,
    authProxyUrl: server.authProxyUrl,
    authProxyConfigId: configId,
    organizationId: server.root.organizationId,
    // Strongroom's own export and import pages, as an app pointed at Strongroom configures them.
    exportIframeUrl: `${server.url}/frames/export`,
    importIframeUrl: `${server.url}/frames/import`,
    ...options.extraConfig,
  };
  served.config = appConfig;
  const browser = await launchBrowser();
  return {
    server,
    site,
    browser,
    configId,
    appConfig,
    async close() {
      await browser.close();
      await site.close();
      await server.close();
    },
  };
}

/** A tab with a virtual passkey authenticator, on the kit app, once the kit has initialized. */
export async function openKitApp(world: KitWorld, options: { authenticator?: boolean } = {}): Promise<Page> {
  const page = await world.browser.context.newPage();
  // The page's own errors land in the test output, where a failing step is read.
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  if (options.authenticator !== false) await addVirtualAuthenticator(page);
  await page.goto(world.site.origin);
  await waitForKit(page);
  return page;
}

export async function waitForKit(page: Page): Promise<void> {
  await page.getByTestId("client-state").filter({ hasText: "ready" }).waitFor({ timeout: 20_000 });
}

export const authState = (page: Page) => page.getByTestId("auth-state").textContent();

/** Waits until the kit's page shows the user logged in. */
export async function waitForAuthenticated(page: Page): Promise<void> {
  await page
    .getByTestId("auth-state")
    .filter({ hasText: /^authenticated$/ })
    .waitFor();
}

export type Kit = NonNullable<Window["kit"]>;

/**
 * Runs `call` in the page with the kit's context (the methods an app's buttons call). A rejection becomes an
 * Error carrying the SDK's message and its cause (the server's answer), which Playwright would otherwise drop.
 */
export async function inKit<R, A = undefined>(page: Page, call: (kit: Kit, arg: A) => Promise<R>, arg?: A): Promise<R> {
  const outcome = await page.evaluate(
    async ({ source, arg }) => {
      const run = (0, eval)(source) as (kit: unknown, arg: unknown) => Promise<unknown>;
      try {
        return { value: await run(window.kit, arg) };
      } catch (e) {
        const error = e as { message?: string; cause?: { message?: string } };
        return { error: `${error.message ?? String(e)}${error.cause ? ` (cause: ${error.cause.message ?? String(error.cause)})` : ""}` };
      }
    },
    { source: call.toString(), arg },
  );
  if ("error" in outcome) throw new Error(`in the page: ${outcome.error}`);
  return outcome.value as R;
}
