import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  goTo,
  hasChromium,
  openConsole,
  saveConsoleScreenshot,
  signInWithApiKey,
  signInWithPasskey,
  startConsoleWorld,
  type ConsoleWorld,
} from "./harness.js";

/** The console's Users, API keys & passkeys and Organization pages, driven in Chromium and checked through the API from Node. */
describe.skipIf(!hasChromium)("console: users, credentials and organization settings", () => {
  let world: ConsoleWorld;
  let api: TurnkeyClient;
  let organizationId: string;
  beforeAll(async () => {
    world = await startConsoleWorld();
    organizationId = world.server.root.organizationId;
    const { apiPublicKey, apiPrivateKey } = world.server.root;
    api = new TurnkeyClient({ baseUrl: world.server.url }, new ApiKeyStamper({ apiPublicKey, apiPrivateKey: apiPrivateKey! }));
  });
  afterAll(async () => {
    await world?.close();
  });

  const userNamed = async (name: string) => (await api.getUsers({ organizationId })).users.find((u) => u.userName === name);
  const status = (page: Page, text: string | RegExp) => page.getByRole("status").filter({ hasText: text }).waitFor();

  it("manages users and tags, registers a passkey and signs in with it, makes an API key, and edits the organization", async () => {
    const page = await openConsole(world);
    await signInWithApiKey(page, world);

    // Users: a tag, a user carrying it, an edit, and a user created and deleted.
    await goTo(page, "Users");
    const tagForm = page.getByRole("form", { name: "New user tag" });
    await tagForm.getByLabel("Tag name").fill("operators");
    await tagForm.getByRole("button", { name: "Create tag" }).click();
    await page.getByRole("button", { name: "Delete tag operators" }).waitFor();
    const [tag] = (await api.listUserTags({ organizationId })).userTags;
    expect(tag?.tagName).toBe("operators");

    const newUser = page.getByRole("form", { name: "New user", exact: true });
    await newUser.getByLabel("Name", { exact: true }).fill("Alice Auditor");
    await newUser.getByLabel(/Email/).fill("alice@example.com");
    await newUser.getByLabel("operators").check();
    await newUser.getByRole("button", { name: "Create user" }).click();
    const aliceRow = page.getByRole("row", { name: "Alice Auditor", exact: true });
    await aliceRow.getByText("alice@example.com").waitFor();
    await expect(aliceRow.getByRole("cell").nth(1).textContent()).resolves.toBe("operators");
    const alice = await userNamed("Alice Auditor");
    expect(alice).toMatchObject({ userEmail: "alice@example.com", userTags: [tag!.tagId] });

    await aliceRow.getByRole("button", { name: "Edit Alice Auditor" }).click();
    const edit = page.getByRole("form", { name: "Edit Alice Auditor" });
    await edit.getByLabel("Email").fill("alice@corp.example");
    await edit.getByRole("button", { name: "Save" }).click();
    await aliceRow.getByText("alice@corp.example").waitFor();
    expect((await userNamed("Alice Auditor"))?.userEmail).toBe("alice@corp.example");

    await newUser.getByLabel("Name", { exact: true }).fill("Temporary user");
    await newUser.getByRole("button", { name: "Create user" }).click();
    const temporaryRow = page.getByRole("row", { name: "Temporary user", exact: true });
    await temporaryRow.waitFor();
    expect(await userNamed("Temporary user")).toBeDefined();
    await temporaryRow.getByRole("button", { name: "Delete Temporary user" }).click();
    await page.getByRole("group", { name: "Delete Temporary user" }).getByRole("button", { name: "Confirm delete" }).click();
    await temporaryRow.waitFor({ state: "detached" });
    expect(await userNamed("Temporary user")).toBeUndefined();
    await saveConsoleScreenshot(page, "users");

    // A passkey for the root user, created in this browser (Chromium's virtual authenticator).
    await goTo(page, "API keys & passkeys");
    await page.getByText(/Signed in as Root user with an API key/).waitFor();
    const passkeyForm = page.getByRole("form", { name: "New passkey" });
    await passkeyForm.getByLabel("Passkey name").fill("This browser");
    await passkeyForm.getByRole("button", { name: "Register a passkey" }).click();
    await page
      .getByRole("table", { name: "Passkeys" })
      .getByRole("row", { name: /This browser/ })
      .waitFor();
    const { authenticators } = await api.getAuthenticators({ organizationId, userId: world.server.root.userId });
    expect(authenticators.map((a) => a.authenticatorName)).toEqual(["This browser"]);

    // Sign out, and in again with that passkey.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Organization ID").waitFor();
    await signInWithPasskey(page, organizationId);
    await goTo(page, "API keys & passkeys");
    await page.getByText(/Signed in as Root user with a passkey/).waitFor();

    // An API key generated in the page; its private key, shown once, works from Node.
    const keyForm = page.getByRole("form", { name: "New API key" });
    await keyForm.getByLabel("API key name").fill("Made in the console");
    await keyForm.getByRole("button", { name: "Create API key" }).click();
    const pair = page.getByRole("region", { name: "New API key pair" });
    const apiPublicKey = await pair.getByLabel("Public key").inputValue();
    const apiPrivateKey = await pair.getByLabel("Private key").inputValue();
    await page
      .getByRole("table", { name: "API keys" })
      .getByRole("row", { name: /Made in the console/ })
      .waitFor();
    const fromConsole = new TurnkeyClient({ baseUrl: world.server.url }, new ApiKeyStamper({ apiPublicKey, apiPrivateKey }));
    const whoami = await fromConsole.getWhoami({ organizationId });
    expect(whoami.userId).toBe(world.server.root.userId);
    await saveConsoleScreenshot(page, "credentials");
    await pair.getByRole("button", { name: "I have copied it" }).click();
    await pair.waitFor({ state: "detached" });

    // Organization: an IP allowlist rule (not enforced), then a root quorum of two needing both.
    await goTo(page, "Organization");
    await page.getByRole("form", { name: "New rule" }).getByLabel("CIDR block").fill("10.20.0.0/24");
    await page.getByRole("form", { name: "New rule" }).getByLabel(/Label/).fill("office VPN");
    await page.getByRole("button", { name: "Add rule" }).click();
    await page.getByRole("button", { name: "Save allowlist" }).click();
    await status(page, "Allowlist saved.");
    const { allowlist } = await api.getIpAllowlist({ organizationId });
    expect(allowlist.rules.map(({ cidr, label }) => ({ cidr, label }))).toEqual([{ cidr: "10.20.0.0/24", label: "office VPN" }]);
    expect(allowlist.enabled).toBe(false);

    const quorumForm = page.getByRole("form", { name: "Root quorum" });
    await quorumForm.getByLabel("Alice Auditor").check();
    await quorumForm.getByLabel(/threshold/).fill("2");
    await quorumForm.getByRole("button", { name: "Save root quorum" }).click();
    await status(page, "Root quorum saved.");
    const { quorum } = (await api.getOrganizationConfigs({ organizationId })).configs;
    expect(quorum?.threshold).toBe(2);
    expect([...(quorum?.userIds ?? [])].sort()).toEqual([alice!.userId, world.server.root.userId].sort());

    // Now root alone cannot turn a feature off: the page says it waits for consensus, and nothing changed yet.
    await page.getByRole("combobox", { name: "Email auth", exact: true }).selectOption("false");
    await status(page, /consensus needed/);
    await page.getByRole("link", { name: "See the activity" }).waitFor();
    const { features } = (await api.getOrganizationConfigs({ organizationId })).configs;
    expect(features ?? []).not.toContainEqual({ name: "FEATURE_NAME_EMAIL_AUTH", value: "false" });
    await saveConsoleScreenshot(page, "settings");
  });
});
