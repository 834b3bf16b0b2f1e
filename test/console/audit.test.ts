import { generateP256KeyPair } from "@turnkey/crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeVerifierKey } from "../../src/crypto/signed-note.js";
import { AUDIT_TEST_ENV, settled, strongroomQuery } from "../audit/helpers.js";
import { hasChromium } from "../browser/harness.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { goTo, openConsoleSignedInWithApiKey, saveConsoleScreenshot, startConsoleWorld, type ConsoleWorld } from "./harness.js";

/**
 * The console's audit log page: the latest checkpoint, its signature checked in the browser (with the served key or
 * one kept elsewhere), and the organization's entries, each proven included in the browser — so an entry edited in
 * the database shows as not included, whatever the server says.
 */
describe.skipIf(!hasChromium)("console: audit log", () => {
  let world: ConsoleWorld;
  let page: Page;
  let size: number;
  beforeAll(async () => {
    world = await startConsoleWorld(AUDIT_TEST_ENV);
    await world.server.client().createUserTag({ userTagName: "audited", userIds: [] });
    const body = activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", world.server.root.organizationId, { userTagName: "x", userIds: [] });
    const forged = await post(`${world.server.url}/public/v1/submit/create_user_tag`, body, {
      "X-Stamp": p256Stamp(body, world.server.root.apiPublicKey, generateP256KeyPair().privateKey),
    });
    expect(forged.status).toBe(401);
    size = await settled(world.server.services.db);
    page = await openConsoleSignedInWithApiKey(world);
    await goTo(page, "Audit log");
  });
  afterAll(async () => world?.close());

  const entryRows = () => page.getByRole("table", { name: "Audit log entries" }).getByRole("row");
  const proofOf = async (name: string) =>
    (await page.getByRole("row", { name }).getByRole("cell").allTextContents()).find((text) => /included|not at index|does not/.test(text));

  it("shows the latest checkpoint, its signature verified here, and the organization's entries", async () => {
    const signature = page.getByRole("status");
    await expect.poll(() => signature.textContent()).toBe("verified in this browser with the log key");
    await page.getByText(String(size), { exact: true }).waitFor();
    const key = (await strongroomQuery(world.server, "get_audit_log_key", {})).json.verifierKey as string;
    await page.getByText(key, { exact: true }).waitFor();
    await entryRows().nth(3).waitFor(); // the header row, then the entries
    const texts = await entryRows().allTextContents();
    expect(texts.some((t) => t.includes("organization.initialized"))).toBe(true);
    expect(texts.some((t) => t.includes("activity CREATE_USER_TAG · COMPLETED") && t.includes("Root user"))).toBe(true);
    expect(texts.some((t) => t.includes("activity.refused CREATE_USER_TAG · HTTP 401") && t.includes("not authenticated"))).toBe(true);
  });

  it("proves every entry shown included in the checkpoint, in the browser", async () => {
    await page.getByRole("button", { name: "Verify all shown" }).click();
    const rows = await page
      .getByRole("table", { name: "Audit log entries" })
      .getByRole("row", { name: /^Entry \d+$/ })
      .all();
    expect(rows).toHaveLength(3); // the organization's creation, the tag, the forged stamp
    for (const row of rows) await row.getByText(`included in the checkpoint of size ${size}`).waitFor();
    await saveConsoleScreenshot(page, "audit");
  });

  it("refuses the checkpoint under a key kept elsewhere that did not sign it", async () => {
    const served = (await strongroomQuery(world.server, "get_audit_log_key", {})).json.verifierKey as string;
    const other = encodeVerifierKey(served.split("+")[0]!, ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
    await page.getByLabel("Verify with a key kept elsewhere").fill(other);
    await expect.poll(() => page.getByRole("status").textContent()).toMatch(/is not signed by/);
    await page.getByLabel("Verify with a key kept elsewhere").fill(served);
    await expect.poll(() => page.getByRole("status").textContent()).toBe("verified in this browser with the key kept elsewhere");
  });

  it("shows an entry edited in the database as not included, whatever the server answers", async () => {
    const [edited] = await world.server.services.db.query<{ idx: string }>(
      "UPDATE audit_entries SET entry = replace(entry, 'ACTIVITY_STATUS_COMPLETED', 'ACTIVITY_STATUS_FAILED') WHERE organization_id = $1 AND entry LIKE '%ACTIVITY_STATUS_COMPLETED%' RETURNING idx",
      [world.server.root.organizationId],
    );
    await page.getByRole("button", { name: "Refresh" }).last().click();
    const name = `Entry ${edited!.idx}`;
    await page.getByRole("row", { name }).getByText("CREATE_USER_TAG · FAILED").waitFor();
    await page
      .getByRole("row", { name })
      .getByRole("button", { name: `Verify entry ${edited!.idx}` })
      .click();
    await expect.poll(() => proofOf(name)).toMatch(new RegExp(`the entry is not at index ${edited!.idx}`));
  });
});
