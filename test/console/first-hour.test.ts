import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGES } from "../../console/src/routes.js";
import { repoRoot } from "../helpers/processes.js";
import {
  hasChromium,
  openConsole,
  openConsoleSignedInWithApiKey,
  saveConsoleScreenshot,
  startConsoleWorld,
  type ConsoleWorld,
} from "./harness.js";

/** Screenshots of every page at a phone's width, to look at: scratch/console-375/ (not kept in git). */
const SHOTS = join(repoRoot, "scratch", "console-375");

/**
 * Every element that sticks out of the viewport sideways, whose content is wider than its box (cut off or
 * scrolled sideways), or a group of choices that hides some of them: described by tag, class and text so a
 * failure says where to look.
 */
async function horizontalOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(" ").join(".")}` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}"`;
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      if (el.closest(".visually-hidden, [hidden], option, select")) continue;
      // Hidden on purpose by clipping (the table headings a narrow screen reads to screen readers only).
      let clipped = false;
      for (let e: Element | null = el; e && !clipped; e = e.parentElement) clipped = getComputedStyle(e).clipPath !== "none";
      if (clipped) continue;
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden") continue;
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      if (rect.right > width + 1 || rect.left < -1)
        found.push(`${describe(el)} spans ${Math.round(rect.left)}–${Math.round(rect.right)} of ${width}px`);
      else if (
        el.scrollWidth > el.clientWidth + 1 &&
        style.overflowX !== "visible" &&
        !(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)
      )
        found.push(`${describe(el)} holds ${el.scrollWidth}px in ${el.clientWidth}px`);
      // A group of choices shows every choice: one scrolled inside its box hides its last rows.
      else if (el instanceof HTMLFieldSetElement && el.scrollHeight > el.clientHeight + 1)
        found.push(`${describe(el)} shows ${el.clientHeight}px of its ${el.scrollHeight}px`);
    }
    if (document.documentElement.scrollWidth > width) found.push(`the page is ${document.documentElement.scrollWidth}px wide`);
    return found;
  });
}

describe.skipIf(!hasChromium)("console: the first hour", () => {
  let world: ConsoleWorld;
  let api: TurnkeyClient;
  let organizationId: string;
  beforeAll(async () => {
    world = await startConsoleWorld();
    organizationId = world.server.root.organizationId;
    const { apiPublicKey, apiPrivateKey } = world.server.root;
    api = new TurnkeyClient({ baseUrl: world.server.url }, new ApiKeyStamper({ apiPublicKey, apiPrivateKey: apiPrivateKey! }));
    // Something on every page: a second user with an API key, a wallet, a private key, a policy naming users, a tag.
    const client = world.server.client();
    const key = generateP256KeyPair();
    const { userIds } = await client.createUsers({
      users: [
        {
          userName: "Alice Approver",
          userEmail: "alice.approver.with.a.long.address@example.com",
          apiKeys: [{ apiKeyName: "alice's laptop key with a long name", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    await client.createWallet({
      walletName: "Treasury",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    await client.createPrivateKeys({
      privateKeys: [
        {
          privateKeyName: "Signer",
          curve: "CURVE_SECP256K1",
          addressFormats: ["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", "ADDRESS_FORMAT_TRON"],
          privateKeyTags: [],
        },
      ],
    });
    await client.createPolicy({
      policyName: "Alice and I sign wallets",
      effect: "EFFECT_ALLOW",
      condition: "activity.resource == 'WALLET'",
      consensus: `approvers.any(user, user.id == '${userIds[0]}') && approvers.any(user, user.id == '${world.server.root.userId}')`,
      notes: "",
    });
    await client.createUserTag({ userTagName: "operators", userIds: [] });
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it("on an IP address, says why passkeys cannot work there and links the localhost address", async () => {
    const page = await world.browser.context.newPage();
    await page.goto(`${world.server.url}/console/`); // http://127.0.0.1:<port>/console/
    const note = page.getByRole("note");
    await note.getByText(/Passkeys do not work on an IP address/).waitFor();
    const link = note.getByRole("link");
    expect(await link.getAttribute("href")).toBe(`${world.consoleUrl}`);
    // An API key is what works here, and what is offered first.
    expect(await page.getByLabel("an API key").isChecked()).toBe(true);
    await page.screenshot({ path: join(SHOTS, "sign-in-on-ip.png"), fullPage: true });
    await page.close();
  });

  it("signs in by pasting initial-credentials.json: the private key is the only key asked for", async () => {
    const page = await openConsole(world, { authenticator: false });
    expect(await page.getByLabel("an API key").isChecked()).toBe(true);
    expect(await page.getByLabel("API public key").count()).toBe(0);
    const { organizationId: id, apiPrivateKey, apiPublicKey, userId, apiKeyId, signerPublicKey } = world.server.root;
    await page
      .getByLabel(/Paste credentials/)
      .fill(JSON.stringify({ organizationId: id, userId, apiKeyId, apiPublicKey, apiPrivateKey, signerPublicKey }, null, 2));
    expect(await page.getByLabel("Organization ID").inputValue()).toBe(id);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await saveConsoleScreenshot(page, "signed-in");
    await page.close();
  });

  it("fits every page at 375 px: nothing sticks out sideways or is cut", async () => {
    const page = await openConsoleSignedInWithApiKey(world, { width: 375 });
    const problems: string[] = [];
    for (const { path, title } of PAGES) {
      await page.goto(`${world.consoleUrl}#/${path}`);
      await page.getByRole("heading", { level: 1, name: title }).waitFor();
      await page.waitForLoadState("networkidle");
      await page.waitForTimeout(300); // loaders settle after the last response; nothing else to wait on
      await page.screenshot({ path: join(SHOTS, `${path}.png`), fullPage: true });
      problems.push(...(await horizontalOverflow(page)).map((p) => `${title}: ${p}`));
    }
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("the overflow check finds a page that does not fit (so a pass means something)", async () => {
    const page = await openConsoleSignedInWithApiKey(world, { width: 375 });
    await page.evaluate(() => {
      const wide = document.createElement("div");
      wide.style.width = "600px";
      wide.textContent = "too wide";
      document.querySelector("main")!.append(wide);
    });
    expect((await horizontalOverflow(page)).join("\n")).toContain("too wide");
    await page.close();
  });

  it("speaks in names and sentences: the organization by name, who an id in a policy is (you included), an activity in words, a confirmation after a create", async () => {
    const page = await openConsoleSignedInWithApiKey(world);
    const switcher = page.getByLabel("Organization", { exact: true });
    // The names arrive after the ids: wait for them.
    await expect
      .poll(async () => (await switcher.locator("option:checked").textContent())?.trim(), { timeout: 20_000 })
      .toBe("Test organization (yours)");

    await page.goto(`${world.consoleUrl}#/policies`);
    const policy = page.getByRole("article", { name: "Alice and I sign wallets" });
    const legend = policy.locator(".id-legend").last();
    await legend.getByText("Alice Approver").waitFor();
    await legend.getByText("Root user (you)").waitFor();

    // A dry run as another member: what Alice's own request would meet (the root user alone is the root quorum).
    const panel = page.getByRole("form", { name: "Dry run" });
    await panel.getByLabel("Current policies", { exact: true }).check();
    await panel.getByRole("button", { name: "Dry run" }).click();
    await expect.poll(() => panel.getByTestId("dry-run-outcome").textContent()).toBe("ALLOW");
    await panel.getByLabel("Requested by").selectOption({ label: "Alice Approver" });
    await panel.getByRole("button", { name: "Dry run" }).click();
    await expect.poll(() => panel.getByTestId("dry-run-outcome").textContent()).toBe("CONSENSUS_NEEDED");
    await panel
      .getByTestId("dry-run-reason")
      .getByText(/Alice and I sign wallets/)
      .waitFor();

    const { activities } = await api.getActivities({ organizationId, filterByType: ["ACTIVITY_TYPE_CREATE_WALLET"] });
    await page.goto(`${world.consoleUrl}#/activities/${activities[0]!.id}`);
    await page.getByText("Root user (you) asked to create wallet “Treasury”: 1 account.").waitFor();
    const json = page.getByText("The request as JSON");
    expect(await page.getByText('"walletName": "Treasury"').isVisible()).toBe(false);
    await json.click();
    await page.getByText('"walletName": "Treasury"').waitFor();
    await page.screenshot({ path: join(SHOTS, "activity-sentence.png"), fullPage: true });

    await page.goto(`${world.consoleUrl}#/wallets`);
    await page.getByLabel("Wallet name").fill("Savings");
    await page.getByRole("button", { name: "Create wallet" }).click();
    await page.getByRole("status").filter({ hasText: "Create wallet: done." }).waitFor();
    await page.close();
  });
});
