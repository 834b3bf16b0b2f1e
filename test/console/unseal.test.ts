import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitSecret } from "../../src/crypto/keyring/shares.js";
import type { InitResult } from "../../src/domains/organizations/init-root-organization.js";
import { initKeyringAndRoot } from "../../src/server/control-socket.js";
import type { RunningServer } from "../../src/server/start.js";
import { launchBrowser, type Browser } from "../browser/harness.js";
import { persistentStore, sealStatus } from "../helpers/sealed-server.js";
import { goTo, hasChromium, openConsole, saveConsoleScreenshot, signInWithApiKey } from "./harness.js";

/**
 * The console in front of a sealed server (STRONGROOM_SEAL=shamir, 3 of 5 key shares): it shows the seal's status and
 * takes the shares one at a time in a password field, says why a share is refused and that the progress was reset,
 * and offers the sign-in once the server is unsealed. Shares are never kept in the browser.
 */
describe.skipIf(!hasChromium)("console: unsealing a Shamir server", () => {
  let store: Awaited<ReturnType<typeof persistentStore>>;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let root: InitResult;
  let shares: string[];
  const logged: string[] = [];
  const shamir = { STRONGROOM_SEAL: "shamir" };

  beforeAll(async () => {
    store = await persistentStore();
    // init on a first server, which it unseals; the server the console meets is a restart: sealed.
    const first = await store.start(shamir);
    try {
      const init = await initKeyringAndRoot(first.services, { keyring: { keyShares: { shares: 5, threshold: 3 } } });
      root = init;
      shares = init.keyShares!;
    } finally {
      await first.close();
    }
    server = await store.start(shamir);
    browser = await launchBrowser();
    const world = { browser, consoleUrl: `${server.url.replace("127.0.0.1", "localhost")}/console/` };
    page = await openConsole(world, { authenticator: false });
    page.on("console", (message) => logged.push(message.text()));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.drop();
  });

  const shareField = () => page.getByLabel("Key share");
  const progress = () => page.getByRole("status").textContent();
  const give = async (share: string) => {
    await shareField().fill(share);
    await page.getByRole("button", { name: "Give this share" }).click();
  };

  it("shows the seal's status and a password field for a share, not the sign-in", async () => {
    await page.getByRole("heading", { name: "Strongroom is sealed" }).waitFor();
    expect(await progress()).toContain("0 of 3 key shares given");
    expect(await page.getByText("3 of the 5 printed by strongroom init unseal it").count()).toBe(1);
    expect(await shareField().getAttribute("type")).toBe("password");
    expect(await page.getByRole("button", { name: "Sign in" }).count()).toBe(0);
  });

  it("counts each share given, and empties the field after every submit", async () => {
    await give(shares[3]!);
    await expect.poll(progress).toContain("1 of 3 key shares given");
    expect(await shareField().inputValue()).toBe("");
    expect(await sealStatus(server.url)).toMatchObject({ sealed: true, progress: 1 });
    await saveConsoleScreenshot(page, "unseal");

    // The same share again is refused and not counted; the progress stays.
    await give(shares[3]!);
    await page.getByRole("alert").getByText("this key share was already given").waitFor();
    expect(await shareField().inputValue()).toBe("");
    expect(await progress()).toContain("1 of 3 key shares given");
  });

  it("refuses a share of another split, says the progress was reset, and counts again from 0", async () => {
    await give(shares[0]!);
    await expect.poll(progress).toContain("2 of 3 key shares given");
    const other = await splitSecret(randomBytes(32), 5, 3);
    const usedIndexes = new Set([shares[3], shares[0]].map((s) => Buffer.from(s!, "base64")[32]));
    await give(other.find((s) => !usedIndexes.has(Buffer.from(s, "base64")[32]))!);
    const refusal = page.getByRole("alert");
    await refusal.getByText(/Share refused: the key shares given do not combine into this store's root key/).waitFor();
    expect(await refusal.textContent()).toContain("The progress went back to 0 of 3.");
    await expect.poll(progress).toContain("0 of 3 key shares given");
    expect(await sealStatus(server.url)).toMatchObject({ sealed: true, progress: 0 });
  });

  it("offers the sign-in once unsealed, and the Organization page shows the seal", async () => {
    for (const share of [shares[4]!, shares[1]!, shares[2]!]) await give(share);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await sealStatus(server.url)).toMatchObject({ sealed: false, keyVersion: 1 });
    await signInWithApiKey(page, { server: { root } });
    await goTo(page, "Organization");
    const facts = page.getByRole("definition");
    await page.getByText("(3 of 5 key shares unseal it)").waitFor();
    expect(await facts.allTextContents()).toEqual(expect.arrayContaining(["shamir (3 of 5 key shares unseal it)", "unsealed", "1"]));
  });

  it("kept no share in the browser's storage, nor in its console", async () => {
    const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));
    for (const share of shares) {
      expect(stored).not.toContain(share);
      expect(logged.join("\n")).not.toContain(share);
    }
  });
});
