import type { Page } from "playwright-core";
import { parseEther, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient } from "../helpers/velocity-controls.js";
import { goTo, hasChromium, openConsoleSignedInWithApiKey, startConsoleWorld, type ConsoleWorld } from "./harness.js";

const transfer = (value: bigint, nonce: number) =>
  serializeTransaction({
    type: "eip1559",
    chainId: 1,
    nonce,
    to: "0x2222222222222222222222222222222222222222",
    value,
    gas: 21000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
  }).slice(2);

describe.skipIf(!hasChromium)("console: velocity controls beside the policies", () => {
  let world: ConsoleWorld;
  let page: Page;
  let ethAddress: string;
  const listed = async () => {
    const http = httpClient(world.server.url, {
      apiPublicKey: world.server.root.apiPublicKey,
      apiPrivateKey: world.server.root.apiPrivateKey!,
    });
    return (await http.listVelocityControls({ organizationId: world.server.root.organizationId })).velocityControls;
  };

  beforeAll(async () => {
    world = await startConsoleWorld();
    const { addresses } = await world.server.client().createWallet({
      walletName: "Treasury",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    ethAddress = addresses[0]!;
    page = await openConsoleSignedInWithApiKey(world);
    page.setDefaultTimeout(10_000);
    await goTo(page, "Policies");
  });
  afterAll(async () => world?.close());

  const editor = () => page.getByRole("form", { name: /velocity control$/ });

  it("creates a control from the form, showing the server's refusal of a bad threshold first", async () => {
    await page.getByRole("button", { name: "New velocity control" }).click();
    const form = editor();
    await form.getByLabel("Name").fill("Daily ETH");
    await form.getByLabel("Identifier").fill("daily_eth");
    await form.getByLabel("Threshold").fill("1e3");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByRole("alert").getByText("aggregation.threshold").waitFor();
    expect(await listed()).toEqual([]);
    await form.getByLabel("Threshold").fill("1");
    await form.getByRole("button", { name: "Save" }).click();
    const table = page.getByRole("table", { name: "Velocity controls" });
    await table
      .getByRole("row", { name: "daily_eth" })
      .getByText("SUM of transfers of eip155:1/slip44:60 ≤ 1 per user over the last 86400 s")
      .waitFor();
    expect(await listed()).toMatchObject([
      { identifier: "daily_eth", aggregation: { threshold: "1", window: { rolling: { duration: "86400" } } } },
    ]);
  });

  it("edits a control (replacing it) and shows in the dry run its aggregate so far and what the activity would add", async () => {
    await page
      .getByRole("table", { name: "Velocity controls" })
      .getByRole("row", { name: "daily_eth" })
      .getByRole("button", { name: "Edit" })
      .click();
    await editor().getByLabel("Threshold").fill("2.5");
    await editor().getByRole("button", { name: "Save" }).click();
    await editor().waitFor({ state: "detached" });
    expect(await listed()).toMatchObject([{ identifier: "daily_eth", aggregation: { threshold: "2.5" } }]);

    await world.server
      .client()
      .signTransaction({ signWith: ethAddress, unsignedTransaction: transfer(parseEther("0.4"), 0), type: "TRANSACTION_TYPE_ETHEREUM" });
    const panel = page.getByRole("form", { name: "Dry run" });
    await panel.getByLabel("Activity type").fill("ACTIVITY_TYPE_SIGN_TRANSACTION_V2");
    await panel
      .getByLabel("Parameters (JSON)")
      .fill(
        JSON.stringify({ signWith: ethAddress, unsignedTransaction: transfer(parseEther("0.5"), 1), type: "TRANSACTION_TYPE_ETHEREUM" }),
      );
    await panel.getByLabel("Current policies", { exact: true }).check();
    await panel.getByRole("button", { name: "Dry run" }).click();
    const controls = panel.getByRole("region", { name: "Dry-run result" }).getByRole("table", { name: "Velocity controls" });
    await controls.getByRole("row", { name: "controls.daily_eth 0.4 0.5 ≤ 2.5 yes" }).waitFor();
  });

  it("deletes a control", async () => {
    await page.getByRole("button", { name: "Delete daily_eth" }).click();
    await page.getByText("No velocity control").waitFor();
    expect(await listed()).toEqual([]);
  });
});
