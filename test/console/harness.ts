import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { addVirtualAuthenticator, launchBrowser, type Browser } from "../browser/harness.js";

export { hasChromium } from "../browser/harness.js";

const ROOT = resolve(import.meta.dirname, "../..");

export interface ConsoleWorld {
  server: TestServer;
  browser: Browser;
  /** The console on the server's own origin, by host name: WebAuthn refuses IP addresses as relying party IDs. */
  consoleUrl: string;
  close(): Promise<void>;
}

/** A Strongroom test server (its console built by the suite's global setup) and a fresh Chromium. */
export async function startConsoleWorld(env: Record<string, string> = {}): Promise<ConsoleWorld> {
  const server = await startTestServer({ env });
  const browser = await launchBrowser();
  return {
    server,
    browser,
    consoleUrl: `${server.url.replace("127.0.0.1", "localhost")}/console/`,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** A tab on the console, with a virtual passkey authenticator unless told otherwise; page errors go to the test output. */
export async function openConsole(
  world: Pick<ConsoleWorld, "browser" | "consoleUrl">,
  options: { authenticator?: boolean; width?: number } = {},
): Promise<Page> {
  const page = await world.browser.context.newPage();
  page.on("pageerror", (error) => console.error(`console page error: ${error.message}`));
  if (options.width) await page.setViewportSize({ width: options.width, height: 800 });
  if (options.authenticator !== false) await addVirtualAuthenticator(page);
  await page.goto(world.consoleUrl);
  return page;
}

/** Signed in: the top bar's Sign out button (the navigation itself is hidden behind the menu at a phone's width). */
const signedInView = (page: Page) => page.getByRole("button", { name: "Sign out" }).waitFor();

/** Signs in with an API key of `user` (by default the root user's), as a person would type it. */
export async function signInWithApiKey(
  page: Page,
  world: { server: Pick<TestServer, "root"> },
  key: { organizationId: string; apiPublicKey: string; apiPrivateKey: string } = {
    organizationId: world.server.root.organizationId,
    apiPublicKey: world.server.root.apiPublicKey,
    apiPrivateKey: world.server.root.apiPrivateKey!,
  },
): Promise<void> {
  await page.getByLabel("an API key").check();
  await page.getByLabel("Organization ID").fill(key.organizationId);
  // Only the private half: the console derives the public key from it.
  await page.getByLabel(/API private key/).fill(key.apiPrivateKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await signedInView(page);
}

/** A console tab without a passkey authenticator, signed in with an API key (by default the root user's). */
export async function openConsoleSignedInWithApiKey(
  world: ConsoleWorld,
  options: { width?: number; key?: { organizationId: string; apiPublicKey: string; apiPrivateKey: string } } = {},
): Promise<Page> {
  const page = await openConsole(world, { authenticator: false, width: options.width });
  await signInWithApiKey(page, world, options.key);
  return page;
}

export async function signInWithPasskey(page: Page, organizationId: string): Promise<void> {
  await page.getByLabel("Organization ID").fill(organizationId);
  await page.getByLabel("a passkey").check();
  await page.getByRole("button", { name: "Sign in" }).click();
  await signedInView(page);
}

export async function goTo(page: Page, title: string): Promise<void> {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: title }).click();
  await page.getByRole("heading", { level: 1, name: title }).waitFor();
}

/** Screenshots for the guide's "Console" section (docs/guide.md), written only with UPDATE_SCREENSHOTS=1. */
export async function saveConsoleScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS === "1") await page.screenshot({ path: join(ROOT, "docs/console", `${name}.png`), fullPage: true });
}
