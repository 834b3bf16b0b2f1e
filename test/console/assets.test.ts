import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";
import { hasChromium } from "../browser/harness.js";
import { goTo, openConsoleSignedInWithApiKey, saveConsoleScreenshot, startConsoleWorld, type ConsoleWorld } from "./harness.js";

const ETHEREUM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The addresses listed in a wallet or private key card, in order. */
const addressesIn = (card: Locator) => card.getByRole("list").locator("code").allTextContents();

describe.skipIf(!hasChromium)("console: wallets, private keys and webhooks", () => {
  let world: ConsoleWorld;
  beforeAll(async () => {
    // Private webhook URLs (the receiver is on loopback), delivered promptly.
    world = await startConsoleWorld({ STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1", STRONGROOM_WEBHOOK_POLL_MS: "20" });
    await world.browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(world.consoleUrl).origin });
  });
  afterAll(async () => world?.close());

  async function signedIn(width?: number): Promise<Page> {
    return openConsoleSignedInWithApiKey(world, { width });
  }

  it("creates a wallet with an Ethereum account, copies its address and adds the next account", async () => {
    const page = await signedIn();
    await goTo(page, "Wallets");
    await page.getByLabel("Wallet name").fill("Treasury");
    await page.getByLabel("Mnemonic length").selectOption("24");
    await page.getByLabel("First account").selectOption({ label: "Ethereum (m/44'/60'/0'/0/0)" });
    await page.getByRole("button", { name: "Create wallet" }).click();

    const card = page.getByRole("article", { name: "Wallet Treasury" });
    await card.getByText("m/44'/60'/0'/0/0", { exact: true }).waitFor();
    const [, shown] = await addressesIn(card);
    expect(shown).toMatch(ETHEREUM_ADDRESS);

    const client = world.server.client();
    const wallet = (await client.getWallets()).wallets.find((w) => w.walletName === "Treasury")!;
    expect(wallet).toBeDefined();
    const accounts = (await client.getWalletAccounts({ walletId: wallet.walletId })).accounts;
    expect(accounts.map((a) => [a.path, a.address])).toEqual([["m/44'/60'/0'/0/0", shown]]);

    // The copy button is a real button: focused and pressed from the keyboard, it puts the address on the clipboard.
    await card.getByRole("button", { name: "Copy address m/44'/60'/0'/0/0" }).focus();
    await page.keyboard.press("Enter");
    await card.getByRole("button", { name: "Copy address m/44'/60'/0'/0/0" }).getByText("Copied").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);

    // The next Ethereum account is index 1, after the wallet's highest on that path.
    await card.getByLabel("Account to add").selectOption({ label: "Ethereum (m/44'/60'/0'/0/1)" });
    await card.getByRole("button", { name: "Add account" }).click();
    await card.getByText("m/44'/60'/0'/0/1", { exact: true }).waitFor();
    const codes = await addressesIn(card);
    expect(codes[0]).toBe("m/44'/60'/0'/0/0");
    expect(codes[2]).toBe("m/44'/60'/0'/0/1");
    expect(codes[3]).toMatch(ETHEREUM_ADDRESS);
    expect(codes[3]).not.toBe(shown);
    const after = (await client.getWalletAccounts({ walletId: wallet.walletId })).accounts;
    expect(after.map((a) => [a.path, a.address])).toEqual([
      ["m/44'/60'/0'/0/0", shown],
      ["m/44'/60'/0'/0/1", codes[3]],
    ]);

    // A Solana account starts its own path at index 0.
    await card.getByLabel("Account to add").selectOption({ label: "Solana (m/44'/501'/0'/0')" });
    await card.getByRole("button", { name: "Add account" }).click();
    await card.getByText("m/44'/501'/0'/0'", { exact: true }).waitFor();
    await saveConsoleScreenshot(page, "wallets");
    await page.close();
  });

  it("renames a wallet, and deletes it only once told its never-exported key material goes", async () => {
    const page = await signedIn();
    await goTo(page, "Wallets");
    await page.getByLabel("Wallet name").fill("Scratch");
    await page.getByLabel("First account").selectOption({ label: "Bitcoin native segwit (m/84'/0'/0'/0/0)" });
    await page.getByRole("button", { name: "Create wallet" }).click();
    const card = page.getByRole("article", { name: "Wallet Scratch" });
    await card.getByText("m/84'/0'/0'/0/0", { exact: true }).waitFor();
    expect((await addressesIn(card))[1]).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);

    await card.getByRole("button", { name: "Rename" }).click();
    await card.getByLabel("New name").fill("Scratch two");
    await card.getByRole("button", { name: "Save name" }).click();
    const renamed = page.getByRole("article", { name: "Wallet Scratch two" });
    await renamed.waitFor();
    const client = world.server.client();
    const wallet = (await client.getWallets()).wallets.find((w) => w.walletName === "Scratch two")!;
    expect(wallet).toBeDefined();

    await renamed.getByRole("button", { name: "Delete…" }).click();
    const destroy = renamed.getByRole("button", { name: "Delete wallet" });
    expect(await destroy.isDisabled()).toBe(true);
    await renamed.getByLabel(/never exported/).check();
    await destroy.click();
    await renamed.waitFor({ state: "detached" });
    expect((await client.getWallets()).wallets.some((w) => w.walletId === wallet.walletId)).toBe(false);
    await page.close();
  });

  it("creates a private key with its addresses, and deletes it", async () => {
    const page = await signedIn();
    await goTo(page, "Private keys");
    await page.getByLabel("Key name").fill("Hot signer");
    await page.getByLabel("Curve").selectOption({ label: "secp256k1" });
    expect(await page.getByRole("checkbox", { name: "Ethereum" }).isChecked()).toBe(true);
    await page.getByRole("checkbox", { name: "Tron" }).check();
    await page.getByRole("button", { name: "Create private key" }).click();

    const card = page.getByRole("article", { name: "Private key Hot signer" });
    await card.getByText("Tron").waitFor();
    const [ethereum, tron] = await addressesIn(card);
    expect(ethereum).toMatch(ETHEREUM_ADDRESS);
    expect(tron).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);

    const client = world.server.client();
    const key = (await client.getPrivateKeys()).privateKeys.find((k) => k.privateKeyName === "Hot signer")!;
    expect(key.curve).toBe("CURVE_SECP256K1");
    expect(key.addresses).toEqual([
      { format: "ADDRESS_FORMAT_ETHEREUM", address: ethereum },
      { format: "ADDRESS_FORMAT_TRON", address: tron },
    ]);
    await saveConsoleScreenshot(page, "private-keys");

    await card.getByRole("button", { name: "Delete…" }).click();
    await card.getByLabel(/never exported/).check();
    await card.getByRole("button", { name: "Delete private key" }).click();
    await card.waitFor({ state: "detached" });
    expect((await client.getPrivateKeys()).privateKeys.some((k) => k.privateKeyId === key.privateKeyId)).toBe(false);
    await page.close();
  });

  it("adds a webhook endpoint, shows its deliveries, and deletes it", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const page = await signedIn();
      await goTo(page, "Webhooks");
      await page.getByLabel("Endpoint name").fill("Local receiver");
      await page.getByLabel("URL").fill(receiver.url);
      expect(await page.getByRole("checkbox", { name: "Activity updates" }).isChecked()).toBe(true);
      expect(await page.getByRole("checkbox", { name: "Enabled" }).isChecked()).toBe(true);
      await page.getByRole("button", { name: "Add endpoint" }).click();

      const card = page.getByRole("article", { name: "Endpoint Local receiver" });
      await card.getByText(receiver.url).waitFor();
      await card.getByText("enabled", { exact: true }).waitFor();
      const client = world.server.client();
      const [endpoint] = (await client.listWebhookEndpoints({})).webhookEndpoints;
      expect(endpoint).toMatchObject({ name: "Local receiver", url: receiver.url, isActive: true });
      expect(endpoint?.subscriptions?.map((s) => s.eventType)).toEqual(["ACTIVITY_UPDATES"]);

      // An activity after the endpoint exists is delivered; the page lists the delivery with its status and attempts.
      await client.createUserTag({ userTagName: "hooked", userIds: [] });
      await receiver.until((all) => all.length > 0);
      const firstDelivery = card.getByRole("table", { name: "Deliveries to Local receiver" }).getByRole("row").nth(1).getByRole("cell");
      await expect
        .poll(async () => {
          await card.getByRole("button", { name: "Refresh deliveries" }).click();
          return (await firstDelivery.count()) > 0 ? (await firstDelivery.allTextContents())[2] : "";
        })
        .toMatch(/^delivered /);
      const [, event, , attempts, answer] = await firstDelivery.allTextContents();
      expect([event, attempts, answer]).toEqual(["Activity updates", "1", "HTTP 200"]);
      await saveConsoleScreenshot(page, "webhooks");

      await card.getByRole("button", { name: "Delete…" }).click();
      await card.getByRole("button", { name: "Delete endpoint" }).click();
      await card.waitFor({ state: "detached" });
      expect((await client.listWebhookEndpoints({})).webhookEndpoints).toEqual([]);
      await page.close();
    } finally {
      await receiver.close();
    }
  });

  it("works at a phone's width: the menu opens the navigation and the wallets page fits", async () => {
    const page = await signedIn(375);
    const navigation = page.getByRole("navigation", { name: "Console" });
    expect(await navigation.getByRole("link", { name: "Wallets" }).isVisible()).toBe(false);
    await page.getByRole("button", { name: "Menu" }).click();
    await goTo(page, "Wallets");
    expect(await navigation.getByRole("link", { name: "Wallets" }).isVisible()).toBe(false);

    await page.getByLabel("Wallet name").fill("Pocket");
    await page.getByRole("button", { name: "Create wallet" }).click();
    const card = page.getByRole("article", { name: "Wallet Pocket" });
    await card.getByText("m/44'/60'/0'/0/0", { exact: true }).waitFor();
    await card.getByRole("button", { name: "Add account" }).click();
    await card.getByText("m/44'/60'/0'/0/1", { exact: true }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await saveConsoleScreenshot(page, "wallets-phone");

    // The other two pages fit as well.
    for (const title of ["Private keys", "Webhooks"]) {
      await page.getByRole("button", { name: "Menu" }).click();
      await goTo(page, title);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), title).toBeLessThanOrEqual(375);
    }
    await page.close();
  });
});
