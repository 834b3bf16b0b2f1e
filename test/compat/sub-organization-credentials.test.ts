import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { StamperType } from "@turnkey/core";
import { TurnkeyClient as HttpClient } from "@turnkey/http";
import { WalletStamper, WalletType } from "@turnkey/wallet-stamper";
import { privateKeyToAccount } from "viem/accounts";
import { generateP256KeyPair } from "@turnkey/crypto";
import { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, coreClient, coreRefusal, submitAsRoot } from "../helpers/auth-proxy.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";

type KeyPair = { publicKey: string; privateKey: string };

/**
 * Browser SDKs know only the app's parent organization before the first session: @turnkey/core's
 * loginWithPasskey and @turnkey/sdk-browser's login / loginWithPasskey / loginWithWallet sign a request
 * naming the parent with a sub-organization user's passkey or key. Driven here through core's own client
 * (the passkey through the unchanged @turnkey/webauthn-stamper and a software authenticator) and sdk-server.
 */
describe("a sub-organization's credential on a request naming its parent organization", () => {
  let server: TestServer;
  let configId: string;
  let parentId: string;
  const alice = { authenticator: new SoftwareAuthenticator(), key: generateP256KeyPair() as KeyPair, organizationId: "", userId: "" };

  const core = (passkey?: SoftwareAuthenticator) =>
    coreClient(server, configId, passkey ? new WebauthnStamper({ rpId: passkey.rpId }) : undefined);

  /** A sub-organization signed up through the auth proxy, as core's signUpWithPasskey does. */
  async function signUp(name: string, passkey: SoftwareAuthenticator, apiKeys: KeyPair[] = []) {
    const challenge = randomBytes(32).toString("base64url");
    return core().proxySignupV2({
      userName: name,
      organizationName: `${name}'s`,
      apiKeys: apiKeys.map((key, i) => ({ apiKeyName: `${name} key ${i}`, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" })),
      authenticators: [{ authenticatorName: `${name}'s laptop`, challenge, attestation: passkey.attest(challenge) }],
      oauthProviders: [],
    });
  }

  const asKey = (key: KeyPair, organizationId: string) =>
    server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }, organizationId);

  beforeAll(async () => {
    server = await startTestServer();
    parentId = server.root.organizationId;
    await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {});
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
    const signedUp = await signUp("alice", alice.authenticator, [alice.key]);
    alice.organizationId = signedUp.organizationId;
    alice.userId = signedUp.userId;
  });
  afterAll(async () => server.close());

  it("core's loginWithPasskey request (stamp_login naming the parent, signed by the passkey) logs in to the sub-organization", async () => {
    alice.authenticator.install();
    const sessionKey = generateP256KeyPair();
    // As loginWithPasskey sends it: no organizationId, so core names its configured (parent) organization.
    const { session, activity } = await core(alice.authenticator).stampLogin({ publicKey: sessionKey.publicKey }, StamperType.Passkey);
    expect(activity.organizationId).toBe(alice.organizationId);
    expect(claimsOf(session)).toMatchObject({
      organization_id: alice.organizationId,
      user_id: alice.userId,
      public_key: sessionKey.publicKey,
    });
    // The activity and the login key are the sub-organization's; the parent has neither.
    const inSub = await server
      .client()
      .getActivities({ organizationId: alice.organizationId, filterByType: ["ACTIVITY_TYPE_STAMP_LOGIN"] });
    expect(inSub.activities.map((a) => a.id)).toContain(activity.id);
    const inParent = await server.client().getActivities({ filterByType: ["ACTIVITY_TYPE_STAMP_LOGIN"] });
    expect(inParent.activities).toHaveLength(0);
    expect((await asKey(sessionKey, alice.organizationId).getWhoami({})).userId).toBe(alice.userId);
  });

  it("whoami naming the parent answers the sub-organization and its user, for the passkey and for an API key", async () => {
    alice.authenticator.install();
    const byPasskey = await core(alice.authenticator).getWhoami({}, StamperType.Passkey);
    expect(byPasskey).toMatchObject({ organizationId: alice.organizationId, organizationName: "alice's", userId: alice.userId });
    const byKey = await asKey(alice.key, parentId).getWhoami({});
    expect(byKey).toMatchObject({ organizationId: alice.organizationId, userId: alice.userId, username: "alice" });
  });

  it("create_read_only_session naming the parent (sdk-browser's login) answers a session of the sub-organization", async () => {
    alice.authenticator.install();
    const result = await core(alice.authenticator).createReadOnlySession({}, StamperType.Passkey);
    expect(result).toMatchObject({ organizationId: alice.organizationId, userId: alice.userId });
  });

  it("a wallet login (core's loginWithWallet, sdk-browser's loginWithWallet): stamp_login naming the parent, signed by the wallet", async () => {
    const secret = secp256k1.utils.randomSecretKey();
    const walletPublicKey = bytesToHex(secp256k1.getPublicKey(secret, true));
    const account = privateKeyToAccount(`0x${bytesToHex(secret)}`);
    // Signed up with the wallet's key only, as core's signUpWithWallet does.
    const signedUp = await core().proxySignupV2({
      userName: "walt",
      apiKeys: [{ apiKeyName: "wallet", publicKey: walletPublicKey, curveType: "API_KEY_CURVE_SECP256K1" }],
      authenticators: [],
      oauthProviders: [],
    });
    const wallet = {
      type: WalletType.Ethereum,
      signMessage: (message: string) => account.signMessage({ message }),
      getPublicKey: async () => walletPublicKey,
    };
    const client = new HttpClient({ baseUrl: server.url }, new WalletStamper(wallet as never));
    const sessionKey = generateP256KeyPair();
    const { activity } = await client.stampLogin({
      type: "ACTIVITY_TYPE_STAMP_LOGIN",
      timestampMs: String(Date.now()),
      organizationId: parentId,
      parameters: { publicKey: sessionKey.publicKey },
    });
    expect(activity.organizationId).toBe(signedUp.organizationId);
    const session = activity.result.stampLoginResult!.session;
    expect(claimsOf(session)).toMatchObject({ organization_id: signedUp.organizationId, user_id: signedUp.userId });
  });

  it("nothing else resolves a sub-organization's credential: writes and other reads naming the parent are refused and change nothing", async () => {
    const usersBefore = (await server.client().getUsers({})).users.length;
    const newUser = { userName: "intruder", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] };
    const byKey = await refusal(asKey(alice.key, parentId).createUsers({ users: [newUser] }));
    expect(byKey.code).toBe(16);
    expect(byKey.message).toContain(`could not find public key ${alice.key.publicKey}`);
    alice.authenticator.install();
    const byPasskey = await coreRefusal(core(alice.authenticator).createUsers({ users: [newUser] }, StamperType.Passkey));
    expect(byPasskey.code).toBe(16);
    expect(byPasskey.message).toContain("could not be found");
    expect((await server.client().getUsers({})).users.length).toBe(usersBefore);
    // Reads of the parent too: only whoami answers, and it answers the sub-organization.
    expect((await refusal(asKey(alice.key, parentId).getUsers({}))).code).toBe(16);
    expect((await refusal(asKey(alice.key, parentId).getWallets({}))).code).toBe(16);
  });

  it("of two sub-organizations holding one public key, the proven holder is the signer; two proven holders are a conflict", async () => {
    const key = generateP256KeyPair();
    const first = await signUp("bea", new SoftwareAuthenticator(), [key]);
    // Its first stamp (naming its own organization) proves it.
    expect((await asKey(key, first.organizationId).getWhoami({})).userId).toBe(first.userId);
    // Someone registers the same public key in a sub-organization of their own: unproven, it captures nothing.
    const copy = await signUp("mallory", new SoftwareAuthenticator(), [key]);
    expect(await asKey(key, parentId).getWhoami({})).toMatchObject({ organizationId: first.organizationId, userId: first.userId });
    // Once both are proven, the request must name the sub-organization.
    await asKey(key, copy.organizationId).getWhoami({});
    const conflict = await refusal(asKey(key, parentId).getWhoami({}));
    expect(conflict.code).toBe(16);
    expect(conflict.message).toContain(`more than one sub-organization of organization ${parentId}`);
  });

  it("a passkey registered elsewhere under the same credential id, with another key, neither captures nor blocks the login", async () => {
    const mallory = new SoftwareAuthenticator();
    (mallory as { credentialId: Uint8Array }).credentialId = alice.authenticator.credentialId;
    const planted = await signUp("mallory2", mallory);
    expect(planted.organizationId).not.toBe(alice.organizationId);
    alice.authenticator.install();
    const { session } = await core(alice.authenticator).stampLogin({ publicKey: generateP256KeyPair().publicKey }, StamperType.Passkey);
    expect(claimsOf(session)).toMatchObject({ organization_id: alice.organizationId, user_id: alice.userId });
    // The planted one's own assertion logs in to its own sub-organization: the key decides.
    mallory.install();
    const theirs = await core(mallory).stampLogin({ publicKey: generateP256KeyPair().publicKey }, StamperType.Passkey);
    expect(claimsOf(theirs.session)).toMatchObject({ organization_id: planted.organizationId });
  });

  it("a credential of the named organization itself still comes first", async () => {
    expect(await server.client().getWhoami({})).toMatchObject({ organizationId: parentId, userId: server.root.userId });
  });
});
