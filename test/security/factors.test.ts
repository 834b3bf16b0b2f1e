import { p256 } from "@noble/curves/nist.js";
import { decryptCredentialBundle, generateP256KeyPair } from "@turnkey/crypto";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";
import { ETHEREUM_ACCOUNT } from "../helpers/wallet-accounts.js";
import { credentialsOf } from "../helpers/users.js";

type SdkClient = ReturnType<TestServer["client"]>;
const claimsOf = (session: string) => JSON.parse(Buffer.from(session.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
const apiKey = (name: string, publicKey: string) => ({ apiKeyName: name, publicKey, curveType: "API_KEY_CURVE_P256" as const });
const SESSION = { any: [{ type: "AUTHENTICATION_TYPE_SESSION" as const }] };
const API_KEY = { any: [{ type: "AUTHENTICATION_TYPE_API_KEY" as const }] };

describe("an MFA factor cannot be enrolled by another factor", () => {
  let server: TestServer;
  let root: SdkClient;
  let address: string;
  const authenticator = new SoftwareAuthenticator();

  /**
   * Alice, a root user with a long-lived API key and a login session made with it, and the MFA policy of the
   * finding: signing needs a session and an API key.
   */
  async function alice() {
    const key = generateP256KeyPair();
    const { userIds } = await root.createUsers({
      users: [
        {
          userName: `alice ${randomUUID()}`,
          apiKeys: [apiKey("alice key", key.publicKey)],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const userId = userIds[0]!;
    await root.updateRootQuorum({ threshold: 1, userIds: [server.root.userId, userId] });
    const withKey = server.client(credentialsOf(key));
    const sessionKey = generateP256KeyPair();
    await withKey.stampLogin({ publicKey: sessionKey.publicKey });
    await root.createMfaPolicy({
      userId,
      mfaPolicyName: "session and API key to sign",
      condition: "activity.action == 'SIGN'",
      requiredAuthenticationMethods: [SESSION, API_KEY],
      order: 0,
    });
    return { userId, withKey, session: server.client(credentialsOf(sessionKey)) };
  }

  const sign = (client: SdkClient) =>
    client.signRawPayload({
      signWith: address,
      payload: "abcd",
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_SHA256",
    });
  const statusOf = async (activityId: string) => (await root.getActivity({ activityId })).activity.status;

  beforeAll(async () => {
    server = await startTestServer();
    root = server.client();
    authenticator.install();
    ({
      addresses: [address = ""],
    } = await root.createWallet({ walletName: "treasury", accounts: [ETHEREUM_ACCOUNT] }));
  });
  afterAll(async () => server?.close());

  it("a stolen session cannot add an API key to its own user and approve the signing that waits for one", async () => {
    const { userId, withKey, session: thief } = await alice();
    const { activity: signing } = await sign(thief);
    expect(signing.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");

    const attacker = generateP256KeyPair();
    const enrolment = await thief.createApiKeys({ userId, apiKeys: [apiKey("backdoor", attacker.publicKey)] });
    expect(enrolment.activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const keys = (await root.getApiKeys({ userId })).apiKeys.map((k) => k.credential.publicKey);
    expect(keys).not.toContain(attacker.publicKey);
    const approval = await refusal(server.client(credentialsOf(attacker)).approveActivity({ fingerprint: signing.fingerprint }));
    expect(approval.code).toBe(16);
    expect(await statusOf(signing.id)).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");

    // Alice herself, holding both factors, completes the enrolment with her API key.
    const done = await withKey.approveActivity({ fingerprint: enrolment.activity.fingerprint });
    expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await root.getApiKeys({ userId })).apiKeys.map((k) => k.credential.publicKey)).toContain(attacker.publicKey);
  });

  it("nor a passkey, nor an OAuth provider: each enrolment on oneself waits for every MFA policy", async () => {
    const { userId, session: thief } = await alice();
    const challenge = randomBytes(32).toString("base64url");
    const passkey = await thief.createAuthenticators({
      userId,
      authenticators: [{ authenticatorName: "thief's passkey", challenge, attestation: authenticator.attest(challenge) }],
    });
    expect(passkey.activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const provider = await thief.createOauthProviders({
      userId,
      oauthProviders: [{ providerName: "thief's login", oidcClaims: { iss: "https://accounts.example.com", sub: "thief", aud: "app" } }],
    });
    expect(provider.activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const { user } = await root.getUser({ userId });
    expect(user.authenticators).toEqual([]);
    expect(user.oauthProviders).toEqual([]);
  });

  it("a credential created after an activity was submitted proves no step of it; one created before does", async () => {
    const { userId, withKey, session } = await alice();
    const { activity: signing } = await sign(session);
    expect(signing.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    // An API key an administrator gives her afterwards (no MFA of hers is involved in that).
    const later = generateP256KeyPair();
    await root.createApiKeys({ userId, apiKeys: [apiKey("later", later.publicKey)] });
    const refused = await refusal(server.client(credentialsOf(later)).approveActivity({ fingerprint: signing.fingerprint }));
    expect(refused.code).toBe(9);
    expect(refused.message).toContain("created after the activity was submitted");
    expect(await statusOf(signing.id)).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    expect((await withKey.approveActivity({ fingerprint: signing.fingerprint })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("a session minted after the submission proves no SESSION step of it, whatever factor minted it", async () => {
    const { withKey, session } = await alice();
    const { activity: signing } = await sign(withKey);
    expect(signing.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const fresh = generateP256KeyPair();
    await withKey.stampLogin({ publicKey: fresh.publicKey });
    const refused = await refusal(server.client(credentialsOf(fresh)).approveActivity({ fingerprint: signing.fingerprint }));
    expect(refused.code).toBe(9);
    expect(refused.message).toContain("created after the activity was submitted");
    expect(await statusOf(signing.id)).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    expect((await session.approveActivity({ fingerprint: signing.fingerprint })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });
});

describe("a scoped credential mints only scoped credentials", () => {
  let server: TestServer;
  let root: SdkClient;
  const authenticator = new SoftwareAuthenticator();

  /** A login of the root user under a new profile of `scope`: the profile's id and the session's client. */
  async function scopedSession(scope: string) {
    const { sessionProfileId } = await root.createSessionProfile({ sessionProfileName: `profile ${randomUUID()}`, scope });
    const key = generateP256KeyPair();
    await root.stampLogin({ publicKey: key.publicKey, sessionProfileId });
    return { sessionProfileId, client: server.client(credentialsOf(key)) };
  }
  const publicKeys = async () => (await root.getApiKeys({ userId: server.root.userId })).apiKeys.map((k) => k.credential.publicKey);
  const profileOf = async (publicKey: string) =>
    (await root.getApiKeys({ userId: server.root.userId })).apiKeys.find((k) => k.credential.publicKey === publicKey)?.credential
      .sessionProfileId;

  beforeAll(async () => {
    server = await startTestServer();
    root = server.client();
    authenticator.install();
  });
  afterAll(async () => server?.close());

  it("stamp_login by a scoped session (as refreshSession does) yields a session under the same profile", async () => {
    const { sessionProfileId, client: scoped } = await scopedSession(
      "activity.type == 'ACTIVITY_TYPE_STAMP_LOGIN' || activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
    );
    const refreshed = generateP256KeyPair();
    const { session } = await scoped.stampLogin({ publicKey: refreshed.publicKey });
    expect(claimsOf(session)).toMatchObject({ session_profile_id: sessionProfileId, public_key: refreshed.publicKey });
    expect(await profileOf(refreshed.publicKey)).toBe(sessionProfileId);

    const backdoor = generateP256KeyPair();
    const outside = await refusal(
      server
        .client(credentialsOf(refreshed))
        .createApiKeys({ userId: server.root.userId, apiKeys: [apiKey("backdoor", backdoor.publicKey)] }),
    );
    expect(outside.code).toBe(7);
    expect(outside.message).toContain(`outside the scope of session profile`);
    expect(await publicKeys()).not.toContain(backdoor.publicKey);
    // The refreshed session still does what the profile allows.
    const tagged = await server.client(credentialsOf(refreshed)).createUserTag({ userTagName: `tag ${randomUUID()}`, userIds: [] });
    expect(tagged.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");

    // Naming a wider profile is refused, and registers nothing.
    const { sessionProfileId: anything } = await root.createSessionProfile({ sessionProfileName: `wide ${randomUUID()}`, scope: "true" });
    const wider = generateP256KeyPair();
    const named = await refusal(scoped.stampLogin({ publicKey: wider.publicKey, sessionProfileId: anything }));
    expect(named.code).toBe(7);
    expect(named.message).toContain(sessionProfileId);
    expect(await publicKeys()).not.toContain(wider.publicKey);
  });

  it("API keys and read-write sessions a scoped session creates carry its profile", async () => {
    const { sessionProfileId, client: scoped } = await scopedSession(
      "activity.resource == 'API_KEY' || activity.type == 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2'",
    );
    const longLived = generateP256KeyPair();
    const created = await scoped.createApiKeys({
      userId: server.root.userId,
      apiKeys: [apiKey("made by a scoped session", longLived.publicKey)],
    });
    expect(created.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await profileOf(longLived.publicKey)).toBe(sessionProfileId);
    const wallet = await refusal(server.client(credentialsOf(longLived)).createWallet({ walletName: "not in scope", accounts: [] }));
    expect(wallet.code).toBe(7);
    expect(wallet.message).toContain(sessionProfileId);

    const target = generateP256KeyPair();
    const { credentialBundle } = await scoped.createReadWriteSession({ targetPublicKey: target.publicKeyUncompressed });
    const privateKey = decryptCredentialBundle(credentialBundle, target.privateKey);
    const sessionKey = { privateKey, publicKey: Buffer.from(p256.getPublicKey(Buffer.from(privateKey, "hex"), true)).toString("hex") };
    expect(await profileOf(sessionKey.publicKey)).toBe(sessionProfileId);
    const fromSession = await refusal(server.client(credentialsOf(sessionKey)).createWallet({ walletName: "not in scope", accounts: [] }));
    expect(fromSession.code).toBe(7);
    expect((await root.getWallets({})).wallets).toEqual([]);
  });

  it("a scoped session cannot enroll a passkey, an OAuth provider or a user with credentials that cannot carry its profile, whatever its scope", async () => {
    const { sessionProfileId, client: scoped } = await scopedSession("true");
    const challenge = randomBytes(32).toString("base64url");
    const passkey = await refusal(
      scoped.createAuthenticators({
        userId: server.root.userId,
        authenticators: [{ authenticatorName: "passkey", challenge, attestation: authenticator.attest(challenge) }],
      }),
    );
    expect(passkey.code).toBe(7);
    expect(passkey.message).toContain(sessionProfileId);
    const provider = await refusal(
      scoped.createOauthProviders({
        userId: server.root.userId,
        oauthProviders: [{ providerName: "login", oidcClaims: { iss: "https://accounts.example.com", sub: "someone", aud: "app" } }],
      }),
    );
    expect(provider.code).toBe(7);
    const user = await refusal(
      scoped.createUsers({
        users: [{ userName: "new", userEmail: "new@example.com", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      }),
    );
    expect(user.code).toBe(7);
    const { user: rootUser } = await root.getUser({ userId: server.root.userId });
    expect(rootUser.authenticators).toEqual([]);
    expect(rootUser.oauthProviders).toEqual([]);
    expect((await root.getUsers({})).users.map((u) => u.userName)).not.toContain("new");
  });
});
