import { generateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import type { Page } from "playwright-core";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitAsRoot } from "../helpers/auth-proxy.js";
import { hasChromium, saveScreenshot } from "./harness.js";
import { inKit, openKitApp, startKitWorld, waitForKit, type KitWorld } from "./kit-setup.js";

declare global {
  interface Window {
    /** A kit flow the test started and finishes by clicking through its modal: what it settled to. */
    pendingFlow?: Promise<string>;
    /** The types of the messages the page's MessagePorts delivered (what the frames answered the kit). */
    frameAnswers?: string[];
    /** A stamper on one of Strongroom's frames, driven by the protocol tests. */
    frameStamper?: InstanceType<NonNullable<Window["IframeStamper"]>>;
  }
}

/**
 * Strongroom's own export and import pages (/frames/export, /frames/import) in Chromium: through the wallet kit's
 * modals as a user clicks them, and through @turnkey/iframe-stamper for what they refuse.
 */
describe.skipIf(!hasChromium)("Strongroom's export and import pages in Chromium", () => {
  let world: KitWorld;

  beforeAll(async () => {
    world = await startKitWorld();
  }, 180_000);
  afterAll(async () => world?.close());

  it("serves each page with its signer key, its own script only and a strict Content-Security-Policy", async () => {
    for (const name of ["export", "import"]) {
      const page = await fetch(`${world.server.url}/frames/${name}`);
      expect(page.status).toBe(200);
      const policy = page.headers.get("content-security-policy")!;
      expect(policy).toContain("default-src 'none'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors *");
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      const html = await page.text();
      const { signerPublicKey } = (await (await fetch(`${world.server.url}/public/v1/discovery/keys`)).json()) as {
        signerPublicKey: string;
      };
      expect(html).toContain(`<meta name="strongroom-signer-public-key" content="${signerPublicKey}">`);
      expect(html).toContain(`<script type="module" src="${name}.js"></script>`);
      const script = await fetch(`${world.server.url}/frames/${name}.js`);
      expect(script.status).toBe(200);
      expect(script.headers.get("content-type")).toContain("text/javascript");
    }
  });

  describe("through the wallet kit's export and import modals", () => {
    let page: Page;

    /**
     * The kit keeps the frame's client only once the frame has answered init and applySettings, and its button
     * does nothing useful before (the import even hangs). The frame's answers reach the page across processes, so
     * the page counts the SETTINGS_APPLIED answers its message ports deliver; once one more arrived than before
     * the modal opened, and React has rendered, the modal is ready.
     */
    const settingsAnswers = () => page.evaluate(() => window.frameAnswers!.filter((type) => type === "SETTINGS_APPLIED").length);
    async function frameReady(container: string, answersBefore: number) {
      try {
        await expect.poll(settingsAnswers, { timeout: 20_000 }).toBeGreaterThan(answersBefore);
      } catch (error) {
        // What a failure here needs read: how the flow ended (if it did), and what the modal holds.
        const state = await page.evaluate(async (container) => {
          const settled = await Promise.race([window.pendingFlow, new Promise((r) => setTimeout(() => r("still pending"), 100))]);
          const frame = document.querySelector<HTMLIFrameElement>(`${container} iframe`);
          return { flow: settled, answers: window.frameAnswers, container: !!document.querySelector(container), frame: frame?.src ?? null };
        }, container);
        throw new Error(`the frame never answered APPLY_SETTINGS: ${JSON.stringify(state)}`, { cause: error });
      }
      await page.evaluate(() => new Promise((rendered) => requestAnimationFrame(() => requestAnimationFrame(rendered))));
      return page.frameLocator(`${container} iframe`).locator("#secret");
    }

    beforeAll(async () => {
      page = await openKitApp(world);
      await page.addInitScript(() => {
        const answers: string[] = [];
        window.frameAnswers = answers;
        const onmessage = Object.getOwnPropertyDescriptor(MessagePort.prototype, "onmessage")!;
        Object.defineProperty(MessagePort.prototype, "onmessage", {
          configurable: true,
          get(this: MessagePort) {
            return onmessage.get!.call(this) as unknown;
          },
          set(this: MessagePort, handler: ((this: MessagePort, event: MessageEvent) => void) | null) {
            const counted =
              handler &&
              function (this: MessagePort, event: MessageEvent<{ type?: string } | null>) {
                handler.call(this, event);
                if (typeof event.data?.type === "string") answers.push(event.data.type);
              };
            onmessage.set!.call(this, counted);
          },
        });
      });
      await page.reload();
      await waitForKit(page);
      await inKit(page, (kit) => kit.signUpWithPasskey({ passkeyDisplayName: "Frames laptop" }));
      await page.getByTestId("wallets").locator("li").first().waitFor();
    }, 120_000);

    it("shows the wallet's mnemonic inside the export frame, out of the page's reach", async () => {
      const wallet = await page.evaluate(() => ({
        walletId: window.kit!.wallets[0]!.walletId,
        address: window.kit!.wallets[0]!.accounts[0]!.address,
      }));
      const answersBefore = await settingsAnswers();
      await page.evaluate((walletId) => {
        window.pendingFlow = window.kit!.handleExportWallet({ walletId }).then(
          () => "done",
          (e: Error) => `failed: ${e.message} ${String((e.cause as Error | undefined)?.message ?? "")}`,
        );
      }, wallet.walletId);
      const secret = await frameReady("#turnkey-export-iframe-container-id", answersBefore);
      await page.getByRole("button", { name: "Export Wallet" }).click();
      await secret.waitFor({ state: "visible" });
      const mnemonic = (await secret.textContent())!;
      expect(mnemonic.split(" ")).toHaveLength(12);
      expect(mnemonicToAccount(mnemonic).address).toBe(wallet.address);
      // The frame is on Strongroom's origin: the app's page cannot read what it shows.
      expect(
        await page.evaluate(() => document.querySelector<HTMLIFrameElement>("#turnkey-export-iframe-container-id iframe")!.contentDocument),
      ).toBeNull();
      await saveScreenshot(page, "kit-export-frame");
      await page.getByRole("button", { name: "Done" }).click();
      expect(await page.evaluate(() => window.pendingFlow)).toBe("done");
      // The modal fades out before a user could open the next one; the next test opens one only once it is gone.
      await page.locator("#headlessui-portal-root").waitFor({ state: "detached" });
    });

    it("imports a mnemonic typed into the import frame as a wallet with the expected account", async () => {
      const mnemonic = generateMnemonic(wordlist);
      const answersBefore = await settingsAnswers();
      await page.evaluate(() => {
        window.pendingFlow = window
          .kit!.handleImportWallet({ defaultWalletAccounts: ["ADDRESS_FORMAT_ETHEREUM"], successPageDuration: 0 })
          .then(
            (walletId) => walletId,
            (e: Error) => `failed: ${e.message} ${String((e.cause as Error | undefined)?.message ?? "")}`,
          );
      });
      const typed = await frameReady("#turnkey-import-iframe-container-id", answersBefore);
      await typed.fill(mnemonic);
      await page.getByTestId("import-wallet-name-input").fill("Imported in the frame");
      await saveScreenshot(page, "kit-import-frame");
      await page.getByRole("button", { name: "Import", exact: true }).click();
      const walletId = await page.evaluate(() => window.pendingFlow);
      expect(walletId).toMatch(/^[0-9a-f-]{36}$/);
      const wallets = await inKit(page, (kit) => kit.refreshWallets());
      const imported = wallets.find((wallet) => wallet.walletId === walletId)!;
      expect(imported.walletName).toBe("Imported in the frame");
      expect(imported.accounts[0]!.address).toBe(mnemonicToAccount(mnemonic).address);
    });
  });

  describe("through @turnkey/iframe-stamper: what the frames refuse", () => {
    let page: Page;
    beforeAll(async () => {
      page = await world.browser.context.newPage();
      await page.goto(`${world.site.origin}/sdk.html`);
      await page.getByText("ready").waitFor();
    }, 60_000);

    /** Mounts a frame in the page and answers its public key. */
    const mountFrame = (name: "export" | "import") =>
      page.evaluate(async (url) => {
        window.frameStamper?.clear();
        const container =
          document.getElementById("frame") ?? document.body.appendChild(Object.assign(document.createElement("div"), { id: "frame" }));
        window.frameStamper = new window.IframeStamper!({
          iframeUrl: url,
          iframeContainer: container,
          iframeElementId: "strongroom-frame",
        });
        return window.frameStamper.init();
      }, `${world.server.url}/frames/${name}`);

    /** A stamper call in the page; a refusal comes back as its message. */
    const inFrame = <A>(call: (stamper: NonNullable<Window["frameStamper"]>, arg: A) => Promise<unknown>, arg: A) =>
      page.evaluate(
        async ({ source, arg }) => {
          const run = (0, eval)(source) as (stamper: unknown, arg: unknown) => Promise<unknown>;
          return run(window.frameStamper, arg).then(
            (value) => ({ value }),
            (e: Error) => ({ error: e.message }),
          );
        },
        { source: call.toString(), arg },
      );

    async function exportPrivateKeyTo(targetPublicKey: string) {
      const created = await submitAsRoot(world.server, "create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", {
        privateKeys: [
          {
            privateKeyName: `frame key ${Math.random()}`,
            curve: "CURVE_SECP256K1",
            addressFormats: ["ADDRESS_FORMAT_ETHEREUM"],
            privateKeyTags: [],
          },
        ],
      });
      const { privateKeyId, addresses } = (created.result.createPrivateKeysResultV2!.privateKeys as unknown[])[0] as {
        privateKeyId: string;
        addresses: { address: string }[];
      };
      const exported = await submitAsRoot(world.server, "export_private_key", "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY", {
        privateKeyId,
        targetPublicKey,
      });
      expect(exported.status).toBe("ACTIVITY_STATUS_COMPLETED");
      return { address: addresses[0]!.address, exportBundle: exported.result.exportPrivateKeyResult!.exportBundle as string };
    }

    it("shows a private key export for this organization, and refuses one for another or sealed to another key", async () => {
      const organizationId = world.server.root.organizationId;
      const frameKey = await mountFrame("export");
      expect(frameKey).toMatch(/^04[0-9a-f]{128}$/);
      const { address, exportBundle } = await exportPrivateKeyTo(frameKey);

      const otherOrganization = await inFrame(
        (stamper, bundle) => stamper.injectKeyExportBundle(bundle, "another-organization"),
        exportBundle,
      );
      expect(otherOrganization).toEqual({ error: `the bundle is for organization ${organizationId}, not another-organization` });
      const tampered = JSON.stringify({ ...(JSON.parse(exportBundle) as object), dataSignature: "3006020101020101" });
      expect(await inFrame((stamper, bundle) => stamper.injectKeyExportBundle(bundle, "x"), tampered)).toEqual({
        error: "the bundle's signature does not verify",
      });
      expect(
        await inFrame((stamper, settings) => stamper.applySettings(settings as never), {
          styles: { backgroundImage: "url(https://example.com/x.png)" },
        }),
      ).toEqual({ error: "APPLY_SETTINGS: the style backgroundImage is not allowed" });

      const shown = await inFrame(
        (stamper, [bundle, org]) => stamper.injectKeyExportBundle(bundle!, org!, "HEXADECIMAL" as never),
        [exportBundle, organizationId],
      );
      expect(shown).toEqual({ value: true });
      const key = (await page.frameLocator("#strongroom-frame").locator("#secret").textContent()) as `0x${string}`;
      expect(privateKeyToAccount(key).address).toBe(address);
      // One bundle per frame: its key is wiped once used.
      expect(
        await inFrame((stamper, [bundle, org]) => stamper.injectKeyExportBundle(bundle!, org!), [exportBundle, organizationId]),
      ).toEqual({
        error: "this frame has already shown a bundle; open a new one",
      });

      const otherFrameKey = await mountFrame("export");
      expect(otherFrameKey).not.toBe(frameKey);
      expect(
        await inFrame((stamper, [bundle, org]) => stamper.injectKeyExportBundle(bundle!, org!), [exportBundle, organizationId]),
      ).toEqual({
        error: "the bundle was not sealed to this frame's key",
      });
    });

    it("encrypts an import only for the organization and user of the bundle it was given", async () => {
      const organizationId = world.server.root.organizationId;
      const userId = world.server.root.userId;
      const init = await submitAsRoot(world.server, "init_import_private_key", "ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY", { userId });
      const importBundle = init.result.initImportPrivateKeyResult!.importBundle as string;
      await mountFrame("import");
      expect(
        await inFrame(
          (stamper, [bundle, org]) => stamper.injectImportBundle(bundle!, org!, "another-user"),
          [importBundle, organizationId],
        ),
      ).toEqual({
        error: `the bundle is for user ${userId}, not another-user`,
      });
      expect(await inFrame((stamper) => stamper.extractKeyEncryptedBundle(), null)).toEqual({
        error: "no import bundle has been injected",
      });
      expect(
        await inFrame(
          (stamper, [bundle, org, user]) => stamper.injectImportBundle(bundle!, org!, user!),
          [importBundle, organizationId, userId],
        ),
      ).toEqual({
        value: true,
      });
      const typed = page.frameLocator("#strongroom-frame").locator("#secret");
      await typed.fill("not a key");
      expect(await inFrame((stamper) => stamper.extractKeyEncryptedBundle(), null)).toEqual({
        error: "this is not a HEXADECIMAL private key",
      });

      const account = privateKeyToAccount(`0x${"11".repeat(32)}`);
      await typed.fill(`0x${"11".repeat(32)}`);
      const extracted = (await inFrame((stamper) => stamper.extractKeyEncryptedBundle(), null)) as { value: string };
      expect(await typed.inputValue()).toBe("");
      const imported = await submitAsRoot(world.server, "import_private_key", "ACTIVITY_TYPE_IMPORT_PRIVATE_KEY", {
        userId,
        privateKeyName: "imported through the frame",
        encryptedBundle: extracted.value,
        curve: "CURVE_SECP256K1",
        addressFormats: ["ADDRESS_FORMAT_ETHEREUM"],
      });
      expect(imported.status, JSON.stringify(imported.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
      expect((imported.result.importPrivateKeyResult!.addresses as { address: string }[])[0]!.address).toBe(account.address);
    });
  });
});
