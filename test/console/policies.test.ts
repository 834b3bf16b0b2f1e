import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUserWithApiKey } from "../helpers/users.js";
import {
  goTo,
  hasChromium,
  openConsoleSignedInWithApiKey,
  saveConsoleScreenshot,
  startConsoleWorld,
  type ConsoleWorld,
} from "./harness.js";

const NAME = "Treasury renames";
const CONDITION = "activity.type == 'ACTIVITY_TYPE_UPDATE_WALLET' && wallet.label == 'Treasury'";

describe.skipIf(!hasChromium)("console: policies", () => {
  let world: ConsoleWorld;
  let root: Page;
  let alice: { userId: string; apiPublicKey: string; apiPrivateKey: string };
  const wallets: Record<string, string> = {};

  const serverPolicies = async () => (await world.server.client().getPolicies({})).policies;
  const walletNames = async () => (await world.server.client().getWallets({})).wallets.map((w) => w.walletName).sort();

  beforeAll(async () => {
    world = await startConsoleWorld();
    for (const walletName of ["Treasury", "Petty cash"]) {
      wallets[walletName] = (await world.server.client().createWallet({ walletName, accounts: [] })).walletId;
    }
    const { userId, credentials } = await createUserWithApiKey(world.server.client(), "alice");
    alice = { userId, ...credentials };
    root = await openConsoleSignedInWithApiKey(world);
    root.setDefaultTimeout(10_000);
    await goTo(root, "Policies");
  });
  afterAll(async () => world?.close());

  const editor = (page: Page) => page.getByRole("form", { name: /^(New|Edit) policy$/ });
  const card = (page: Page, name: string) => page.getByRole("list", { name: "Policies" }).getByRole("article", { name });

  it("shows the compiler's error as the condition is typed, keeps Save disabled, and stores nothing", async () => {
    await root.getByRole("button", { name: "New policy" }).click();
    const form = editor(root);
    await form.getByLabel("Name").fill(NAME);
    const condition = form.getByLabel("Condition");
    await condition.pressSequentially("wallet.label == ");
    const problem = form.getByTestId("condition-problem");
    await problem.getByText("Line 1, column 17: expected a value").waitFor();
    expect(await form.getByRole("button", { name: "Save" }).isDisabled()).toBe(true);
    await condition.pressSequentially('"Treasury"');
    await problem.getByText("Line 1, column 17: strings are single-quoted").waitFor();
    expect(await condition.getAttribute("aria-invalid")).toBe("true");

    // A type error on the second line: the position is given as line and column.
    await condition.fill("activity.type == 'ACTIVITY_TYPE_UPDATE_WALLET' &&\n  wallet.labl == 'Treasury'");
    await problem.getByText("Line 2, column 9: Wallet has no field 'labl'").waitFor();
    expect(await form.getByRole("button", { name: "Save" }).isDisabled()).toBe(true);
    // Enter in the name field does not submit either.
    await form.getByLabel("Name").press("Enter");
    await form.getByLabel("Consensus").fill("approvers.count(");
    await form
      .getByTestId("consensus-problem")
      .getByText(/^Line 1, column 17: /)
      .waitFor();
    expect(await serverPolicies()).toEqual([]);
  });

  it("saves once fixed: listed, and present through the API", async () => {
    const form = editor(root);
    await form.getByLabel("Condition").fill(CONDITION);
    await form.getByLabel("Consensus").fill("");
    await form.getByLabel("Notes").fill("Only the treasury may be renamed");
    await form.getByTestId("condition-problem").waitFor({ state: "detached" });
    await form.getByRole("button", { name: "Save" }).click();
    await card(root, NAME).getByText(CONDITION).waitFor();
    await form.waitFor({ state: "detached" });
    expect(await serverPolicies()).toMatchObject([
      { policyName: NAME, effect: "EFFECT_ALLOW", condition: CONDITION, consensus: null, notes: "Only the treasury may be renamed" },
    ]);
  });

  it("shows the server's refusal and stores nothing (a taken name)", async () => {
    await root.getByRole("button", { name: "New policy" }).click();
    const form = editor(root);
    await form.getByLabel("Name").fill(NAME);
    await form.getByLabel("Effect").selectOption("EFFECT_DENY");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByRole("alert").getByText("policy label must be unique").waitFor();
    expect((await serverPolicies()).map((p) => p.effect)).toEqual(["EFFECT_ALLOW"]);
    await form.getByRole("button", { name: "Cancel" }).click();
    await form.waitFor({ state: "detached" });
  });

  it("edits the policy: consensus by alice only", async () => {
    await card(root, NAME).getByRole("button", { name: "Edit" }).click();
    const form = editor(root);
    expect(await form.getByLabel("Condition").inputValue()).toBe(CONDITION);
    await form.getByLabel("Consensus").fill(`approvers.any(user, user.id == '${alice.userId}')`);
    await form.getByRole("button", { name: "Save" }).click();
    await card(root, NAME).getByText(`user.id == '${alice.userId}'`).waitFor();
    expect((await serverPolicies())[0]).toMatchObject({
      policyName: NAME,
      condition: CONDITION,
      consensus: `approvers.any(user, user.id == '${alice.userId}')`,
    });
  });

  it("dry-runs drafted activities as a non-root user, against the current policies and against a draft, executing nothing", async () => {
    const page = await openConsoleSignedInWithApiKey(world, { key: { organizationId: world.server.root.organizationId, ...alice } });
    page.setDefaultTimeout(10_000);
    await goTo(page, "Policies");
    const panel = page.getByRole("form", { name: "Dry run" });
    const outcome = panel.getByTestId("dry-run-outcome");
    /** Dry-runs renaming the wallet and waits for the expected outcome (each run's differs from the one before it). */
    const dryRun = async (walletName: string, policies: "Current policies" | "Current policies with my draft", expected: string) => {
      await panel.getByLabel("Activity type").fill("ACTIVITY_TYPE_UPDATE_WALLET");
      await panel
        .getByLabel("Parameters (JSON)")
        .fill(JSON.stringify({ walletId: wallets[walletName], walletName: `${walletName} renamed` }));
      await panel.getByLabel(policies, { exact: true }).check();
      await panel.getByRole("button", { name: "Dry run" }).click();
      await outcome.filter({ hasText: new RegExp(`^${expected}$`) }).waitFor();
    };

    // The parameters must be a JSON object.
    await panel.getByLabel("Parameters (JSON)").fill("{ walletId: ");
    await panel.getByText(/^Not JSON/).waitFor();
    expect(await panel.getByRole("button", { name: "Dry run" }).isDisabled()).toBe(true);

    await dryRun("Treasury", "Current policies", "ALLOW");
    const result = panel.getByRole("region", { name: "Dry-run result" });
    await result.getByRole("row", { name: `${NAME} allow` }).waitFor();
    await dryRun("Petty cash", "Current policies", "DENY");
    await result.getByTestId("dry-run-reason").getByText("implicit deny").waitFor();
    await result.getByRole("row", { name: `${NAME} deny implicit` }).waitFor();

    // alice drafts a change to the policy (she does not save it): with the draft, petty cash is allowed.
    await card(page, NAME).getByRole("button", { name: "Edit" }).click();
    const form = editor(page);
    await form.getByLabel("Condition").fill("activity.type == 'ACTIVITY_TYPE_UPDATE_WALLET' && wallet.label == 'Petty cash'");
    await dryRun("Petty cash", "Current policies with my draft", "ALLOW");
    await result.getByText("(current policies with the draft)").waitFor();
    await result.getByRole("row", { name: `${NAME} (your draft) allow` }).waitFor();
    await saveConsoleScreenshot(page, "policies");
    await dryRun("Petty cash", "Current policies", "DENY");

    // A draft the compiler refuses cannot be dry-run.
    await form.getByLabel("Condition").fill("wallet.label ==");
    await panel.getByLabel("Current policies with my draft").check();
    await panel.getByText("The draft has a problem").waitFor();
    expect(await panel.getByRole("button", { name: "Dry run" }).isDisabled()).toBe(true);

    expect(await walletNames()).toEqual(["Petty cash", "Treasury"]);
    expect((await serverPolicies())[0]!.condition).toBe(CONDITION);
    await page.close();
  });

  it("dry-runs a past activity from its detail; root is allowed by the root quorum", async () => {
    await goTo(root, "Activity log");
    await root.getByRole("link", { name: "Update policy" }).first().click();
    await root.getByRole("link", { name: "Dry run against drafted policies" }).click();
    await root.getByRole("heading", { level: 1, name: "Policies" }).waitFor();
    const panel = root.getByRole("form", { name: "Dry run" });
    expect(await panel.getByLabel("A past activity").isChecked()).toBe(true);
    expect(await panel.getByLabel("Activity ID").inputValue()).toMatch(/^[0-9a-f-]{36}$/);
    await panel.getByRole("button", { name: "Dry run" }).click();
    await panel.getByRole("region", { name: "Dry-run result" }).waitFor();
    expect(await panel.getByTestId("dry-run-outcome").textContent()).toBe("ALLOW");
    await panel.getByText("The root quorum's approval suffices").waitFor();
  });

  it("deletes the policy", async () => {
    await card(root, NAME).getByRole("button", { name: "Delete" }).click();
    await card(root, NAME)
      .getByRole("button", { name: `Delete “${NAME}”` })
      .click();
    await root.getByRole("status").getByText(`Policy “${NAME}” deleted.`).waitFor();
    await card(root, NAME).waitFor({ state: "detached" });
    expect(await serverPolicies()).toEqual([]);
  });
});
