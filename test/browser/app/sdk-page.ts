// @peculiar/x509 (inside @turnkey/crypto) needs tsyringe's Reflect polyfill loaded before the bundle evaluates it.
import "reflect-metadata";
import { IframeStamper, SessionType, Turnkey } from "@turnkey/sdk-browser";
import { loadAppConfig } from "./app-config.js";

/**
 * @turnkey/sdk-browser with its passkey and IndexedDB stampers. The test calls these flows (what an app's
 * buttons would do) through `window.sdkFlows`.
 */
const config = await loadAppConfig();
const turnkey = new Turnkey({
  apiBaseUrl: config.apiBaseUrl,
  defaultOrganizationId: config.organizationId,
  rpId: window.location.hostname,
});

async function indexedDb() {
  const client = await turnkey.indexedDbClient();
  await client.init();
  return client;
}

const sdkFlows = {
  /** A new passkey on the authenticator, as the attestation a sub-organization is created with. */
  createPasskey: (name: string) => turnkey.passkeyClient().createUserPasskey({ publicKey: { user: { name, displayName: name } } }),
  /** stamp_login signed with the passkey, naming the parent organization; the session key stays in IndexedDB. */
  async loginWithPasskey() {
    const publicKey = (await (await indexedDb()).getPublicKey())!;
    await turnkey.passkeyClient().loginWithPasskey({ sessionType: SessionType.READ_WRITE, publicKey, expirationSeconds: "900" });
    return (await turnkey.getSession())!;
  },
  session: () => turnkey.getSession(),
  /** whoami and a raw signature, both stamped by the IndexedDB key. */
  async whoamiWithIndexedDb(organizationId: string) {
    return (await indexedDb()).getWhoami({ organizationId });
  },
  async signWithIndexedDb(organizationId: string, signWith: string, payload: string) {
    return (await indexedDb()).signRawPayload({
      organizationId,
      signWith,
      payload,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
    });
  },
  async logout() {
    await turnkey.logout();
    await (await indexedDb()).clear();
  },
};

declare global {
  interface Window {
    sdkFlows?: typeof sdkFlows;
    /** The SDK's iframe stamper, for the tests of Strongroom's export and import pages. */
    IframeStamper?: typeof IframeStamper;
  }
}
window.sdkFlows = sdkFlows;
window.IframeStamper = IframeStamper;
document.getElementById("log")!.textContent = "ready";
