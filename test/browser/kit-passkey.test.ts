import type { Page } from "playwright-core";
import {
  createPublicClient,
  http,
  parseEther,
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  serializeTransaction,
  type Hex,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anvilBinary, startAnvil, type Anvil } from "../helpers/anvil.js";
import { submitAsRoot } from "../helpers/auth-proxy.js";
import { hasChromium, saveScreenshot } from "./harness.js";
import { authState, inKit, openKitApp, startKitWorld, waitForKit, waitForAuthenticated, type KitWorld } from "./kit-setup.js";

describe.skipIf(!hasChromium)(
  "the wallet kit in Chromium: passkey signup, signing, refresh, reload, logout and passkey login; auth proxy refusals",
  () => {
    let world: KitWorld;
    let page: Page;
    /** A real EVM node (Base Sepolia's chain id) the kit sends on, when anvil is installed. */
    let anvil: Anvil | undefined;

    beforeAll(async () => {
      anvil = anvilBinary.path ? await startAnvil({ chainId: 84532 }) : undefined;
      world = await startKitWorld({ env: anvil ? { CHAIN_RPC_URLS: `eip155:84532=${anvil.url}`, CHAIN_BROADCAST_POLL_MS: "50" } : {} });
      page = await openKitApp(world);
    }, 180_000);
    afterAll(async () => {
      await world?.close();
      await anvil?.stop();
    });

    const firstAccount = () => page.evaluate(() => window.kit!.wallets[0]!.accounts[0]!);

    it("signs up with a passkey: a sub-organization with its user, passkey and wallet, and a session", async () => {
      expect(await authState(page)).toBe("unauthenticated");
      await inKit(page, (kit) => kit.signUpWithPasskey({ passkeyDisplayName: "Ana laptop" }));
      await waitForAuthenticated(page);
      await page.getByTestId("wallets").locator("li").first().waitFor();
      const account = await firstAccount();
      expect(account.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const session = await page.evaluate(() => window.kit!.session!);
      expect(session.organizationId).not.toBe(world.server.root.organizationId);
      await saveScreenshot(page, "kit-passkey-signed-up");
    });

    it("signs a message and a transaction that recover to the wallet's address", async () => {
      const account = await firstAccount();
      const signed = await inKit(
        page,
        (kit, walletAccount) => kit.signMessage({ message: "hello from the browser", walletAccount, addEthereumPrefix: true }),
        account,
      );
      const signature = `0x${signed.r}${signed.s}${signed.v}` as Hex;
      expect(await recoverMessageAddress({ message: "hello from the browser", signature })).toBe(account.address);

      const unsigned = serializeTransaction({
        type: "eip1559",
        chainId: 1,
        nonce: 0,
        to: "0x000000000000000000000000000000000000dEaD",
        value: 1n,
        gas: 21000n,
        maxFeePerGas: 2n,
        maxPriorityFeePerGas: 1n,
      });
      const signedTransaction = await inKit(
        page,
        (kit, { walletAccount, unsignedTransaction }) =>
          kit.signTransaction({ walletAccount, unsignedTransaction, transactionType: "TRANSACTION_TYPE_ETHEREUM" }),
        { walletAccount: account, unsignedTransaction: unsigned.slice(2) },
      );
      const serialized = (signedTransaction.startsWith("0x") ? signedTransaction : `0x${signedTransaction}`) as Hex;
      expect(parseTransaction(serialized).to?.toLowerCase()).toBe("0x000000000000000000000000000000000000dead");
      expect(await recoverTransactionAddress({ serializedTransaction: serialized as never })).toBe(account.address);
    });

    it.skipIf(!anvilBinary.path)(
      "sends ETH with handleSendTransaction: the kit's modal submits, polls to INCLUDED and shows it sent",
      async () => {
        const node = anvil!;
        const account = await firstAccount();
        await node.rpc("anvil_setBalance", [account.address, `0x${parseEther("1").toString(16)}`]);
        const chain = createPublicClient({ transport: http(node.url) });
        const to = "0x000000000000000000000000000000000000bEEF";
        const before = await chain.getBalance({ address: to });
        const sending = inKit(page, (kit, transaction) => kit.handleSendTransaction({ transaction, successPageDuration: 1000 }), {
          from: account.address,
          to,
          value: parseEther("0.25").toString(),
          caip2: "eip155:84532" as const,
        });
        // The kit's success page shows for successPageDuration once the status is INCLUDED; then the call resolves.
        await page.getByText("Transaction Sent!").waitFor({ timeout: 60_000 });
        await sending;
        expect((await chain.getBalance({ address: to })) - before).toBe(parseEther("0.25"));
        const sent = await chain.getTransactionCount({ address: account.address as Hex });
        expect(sent).toBe(1);
      },
      90_000,
    );

    it("refreshes the session (a new token for the same user) and stays logged in across a reload", async () => {
      const before = await page.evaluate(() => window.kit!.session!);
      await inKit(page, (kit) => kit.refreshSession());
      // The context the page exposes as window.kit re-renders after refreshSession resolves.
      await page.waitForFunction((token) => window.kit!.session!.token !== token, before.token, { timeout: 10_000 });
      const after = await page.evaluate(() => window.kit!.session!);
      expect(after.userId).toBe(before.userId);

      await page.reload();
      await waitForKit(page);
      await waitForAuthenticated(page);
      expect(await page.evaluate(() => window.kit!.session!.userId)).toBe(before.userId);
      await page.getByTestId("wallets").locator("li").first().waitFor();
    });

    it("logs out, and logs back in with the passkey as a returning user (a session for the sub-organization)", async () => {
      const { userId, organizationId } = await page.evaluate(() => window.kit!.session!);
      await inKit(page, (kit) => kit.logout());
      await page.getByTestId("auth-state").filter({ hasText: "unauthenticated" }).waitFor();
      await saveScreenshot(page, "kit-logged-out");

      await inKit(page, (kit) => kit.loginWithPasskey());
      await waitForAuthenticated(page);
      const session = await page.evaluate(() => window.kit!.session!);
      expect(session.userId).toBe(userId);
      expect(session.organizationId).toBe(organizationId);
      await page.getByTestId("wallets").locator("li").first().waitFor();
      await saveScreenshot(page, "kit-passkey-logged-in");
    });

    /** A request to the auth proxy made by the page itself: what the page can read of the answer. */
    const proxyFromPage = (configId: string) =>
      page.evaluate(
        async ({ url, configId }) => {
          try {
            const response = await fetch(`${url}/v1/wallet_kit_config`, {
              method: "POST",
              headers: { "content-type": "application/json", "x-auth-proxy-config-id": configId },
              body: "{}",
            });
            return { status: response.status, body: (await response.json()) as { code?: number; message?: string } };
          } catch (e) {
            return { error: String(e) };
          }
        },
        { url: world.server.authProxyUrl, configId },
      );

    it("auth proxy refusals are readable by the page that caused them: unknown config (401), disallowed origin (403), disabled (403)", async () => {
      const unknown = await proxyFromPage("no-such-config");
      expect(unknown).toMatchObject({ status: 401, body: { code: 16 } });
      expect(JSON.stringify(unknown)).toContain("no-such-config");

      const submit = async (operation: string, type: string, parameters: unknown) =>
        expect((await submitAsRoot(world.server, operation, type, parameters)).status).toBe("ACTIVITY_STATUS_COMPLETED");
      await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedOrigins: ["https://elsewhere.example"] });
      const disallowed = await proxyFromPage(world.configId);
      expect(disallowed).toMatchObject({ status: 403 });
      expect(JSON.stringify(disallowed)).toContain(world.site.origin);

      await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedOrigins: [world.site.origin] });
      await submit("disable_auth_proxy", "ACTIVITY_TYPE_DISABLE_AUTH_PROXY", {});
      const disabled = await proxyFromPage(world.configId);
      expect(disabled).toMatchObject({ status: 403 });
      expect(JSON.stringify(disabled)).toContain("disabled");

      await submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
      expect(await proxyFromPage(world.configId)).toMatchObject({ status: 200 });
    });
  },
);
