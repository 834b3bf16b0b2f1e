import type { Page } from "playwright-core";
import { keccak256, recoverAddress, toBytes, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addVirtualAuthenticator, hasChromium, saveScreenshot } from "./harness.js";
import { startKitWorld, type KitWorld } from "./kit-setup.js";

type Flows = NonNullable<Window["sdkFlows"]>;

/** Runs one of the sdk page's flows; a rejection becomes an Error with the SDK's message. */
async function inSdk<R>(page: Page, flow: keyof Flows, ...args: string[]): Promise<R> {
  const outcome = await page.evaluate(
    async ({ flow, args }) => {
      try {
        const run = window.sdkFlows![flow] as (...a: string[]) => Promise<unknown>;
        return { value: await run(...args) };
      } catch (e) {
        return { error: String((e as Error).message ?? e) };
      }
    },
    { flow, args },
  );
  if ("error" in outcome) throw new Error(`in the page: ${outcome.error}`);
  return outcome.value as R;
}

describe.skipIf(!hasChromium)("@turnkey/sdk-browser in Chromium: passkey and IndexedDB stampers", () => {
  let world: KitWorld;
  let page: Page;
  let subOrganizationId: string;
  let address: string;

  beforeAll(async () => {
    world = await startKitWorld();
    page = await world.browser.context.newPage();
    await addVirtualAuthenticator(page);
    await page.goto(`${world.site.origin}/sdk.html`);
    await page.getByText("ready").waitFor();
  }, 180_000);
  afterAll(async () => world?.close());

  it("a passkey made in the browser becomes the root user's authenticator of a new sub-organization with a wallet", async () => {
    const passkey = await inSdk<{ encodedChallenge: string; attestation: Record<string, unknown> }>(page, "createPasskey", "Bea");
    const created = await world.server.client().createSubOrganization({
      subOrganizationName: "Bea",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "Bea",
          apiKeys: [],
          oauthProviders: [],
          authenticators: [
            { authenticatorName: "Bea's passkey", challenge: passkey.encodedChallenge, attestation: passkey.attestation as never },
          ],
        },
      ],
      wallet: {
        walletName: "Bea's wallet",
        accounts: [
          { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
        ],
      },
    });
    subOrganizationId = created.subOrganizationId;
    address = created.wallet!.addresses[0]!;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it("logs in with the passkey (stamp_login naming the parent) into a session of the sub-organization held by the IndexedDB key", async () => {
    const session = await inSdk<{ organizationId: string; userId: string }>(page, "loginWithPasskey");
    expect(session.organizationId).toBe(subOrganizationId);
    const whoami = await inSdk<{ organizationId: string; username: string }>(page, "whoamiWithIndexedDb", subOrganizationId);
    expect(whoami).toMatchObject({ organizationId: subOrganizationId, username: "Bea" });
  });

  it("signs with the IndexedDB key's session, and the session survives a reload", async () => {
    const digest = keccak256(toBytes("signed from sdk-browser"));
    const signature = await inSdk<{ r: string; s: string; v: string }>(page, "signWithIndexedDb", subOrganizationId, address, digest);
    const recovered = await recoverAddress({ hash: digest, signature: `0x${signature.r}${signature.s}${signature.v}` as Hex });
    expect(recovered.toLowerCase()).toBe(address.toLowerCase());

    await page.reload();
    await page.getByText("ready").waitFor();
    expect(await inSdk<{ organizationId: string }>(page, "session")).toMatchObject({ organizationId: subOrganizationId });
    expect(await inSdk(page, "whoamiWithIndexedDb", subOrganizationId)).toMatchObject({ organizationId: subOrganizationId });
    await saveScreenshot(page, "sdk-browser-logged-in");
  });

  it("logs out: the session and the IndexedDB key are gone", async () => {
    await inSdk(page, "logout");
    expect(await inSdk(page, "session")).toBeUndefined();
  });
});
