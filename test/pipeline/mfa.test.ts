import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { AttestedScheme, AttestedStamper } from "@turnkey/core/dist/__stampers__/attested/base.js";
import { issueVerificationToken } from "../../src/auth/verification-token.js";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";

type SdkClient = ReturnType<TestServer["client"]>;
type Step = {
  any: Array<{
    type: "AUTHENTICATION_TYPE_PASSKEY" | "AUTHENTICATION_TYPE_API_KEY" | "AUTHENTICATION_TYPE_SESSION" | "AUTHENTICATION_TYPE_EMAIL_OTP";
    id?: string;
  }>;
};

const PASSKEY: Step = { any: [{ type: "AUTHENTICATION_TYPE_PASSKEY" }] };
const API_KEY: Step = { any: [{ type: "AUTHENTICATION_TYPE_API_KEY" }] };
const SESSION: Step = { any: [{ type: "AUTHENTICATION_TYPE_SESSION" }] };

/**
 * Alice, a root user of the organization, with an API key, a passkey and a login session: one client per
 * credential, so each request proves the authentication method its stamp is made with. `clock` lets a test
 * move the server's time; the requests' timestamps follow it.
 */
async function alice(server: TestServer, clock: () => number = Date.now) {
  const authenticator = new SoftwareAuthenticator();
  authenticator.install();
  const key = generateP256KeyPair();
  const root = server.client();
  const { userIds } = await root.createUsers({
    users: [
      {
        userName: `alice ${randomUUID()}`,
        apiKeys: [{ apiKeyName: "alice key", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      },
    ],
  });
  const userId = userIds[0]!;
  const challenge = randomBytes(32).toString("base64url");
  const { authenticatorIds } = await root.createAuthenticators({
    userId,
    authenticators: [{ authenticatorName: "alice passkey", challenge, attestation: authenticator.attest(challenge) }],
  });
  await root.updateRootQuorum({ threshold: 1, userIds: [server.root.userId, userId] });
  const organizationId = server.root.organizationId;
  const http = (stamper: ApiKeyStamper | WebauthnStamper) => new TurnkeyClient({ baseUrl: server.url }, stamper);
  const apiKey = http(new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }));
  const passkey = http(new WebauthnStamper({ rpId: authenticator.rpId }));
  const sessionKey = generateP256KeyPair();
  await apiKey.stampLogin({
    type: "ACTIVITY_TYPE_STAMP_LOGIN",
    timestampMs: String(clock()),
    organizationId,
    parameters: { publicKey: sessionKey.publicKey },
  });
  const session = http(new ApiKeyStamper({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }));
  const body = <T extends string, P>(type: T, parameters: P) => ({ type, timestampMs: String(clock()), organizationId, parameters });
  return {
    userId,
    apiKeyId: (await root.getApiKeys({ userId })).apiKeys[0]!.apiKeyId,
    authenticatorId: authenticatorIds[0]!,
    clients: { apiKey, passkey, session },
    /** Alice's SDK client with her API key (sdk-server). */
    sdk: server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
    async mfaPolicy(
      requiredAuthenticationMethods: Step[],
      condition = "activity.resource == 'USER' && activity.action == 'CREATE'",
      order = 0,
    ) {
      const created = await root.createMfaPolicy({
        userId,
        mfaPolicyName: `mfa ${randomUUID()}`,
        condition,
        requiredAuthenticationMethods,
        order,
      });
      return created.mfaPolicyId;
    },
    createUserTag: (client: TurnkeyClient, name = `tag ${randomUUID()}`) =>
      client.createUserTag(body("ACTIVITY_TYPE_CREATE_USER_TAG", { userTagName: name, userIds: [] })),
    approve: (client: TurnkeyClient, fingerprint: string) =>
      client.approveActivity(body("ACTIVITY_TYPE_APPROVE_ACTIVITY", { fingerprint })),
    async dropPolicies() {
      for (const { mfaPolicyId } of (await root.getMfaPolicies({ userId })).mfaPolicies)
        await root.deleteMfaPolicy({ userId, mfaPolicyId });
    },
  };
}

/** The refusal an @turnkey/http call ended in. */
async function httpRefusal(promise: Promise<unknown>): Promise<{ message: string; code: number }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as { message: string; code: number },
  );
  expect(error, "expected a refusal").toBeDefined();
  return error!;
}

async function tagsNamed(root: SdkClient, name: string) {
  return (await root.listUserTags({})).userTags.filter((t) => t.tagName === name);
}

describe("MFA: an activity waits in AUTHENTICATORS_NEEDED until its requester proves the required methods", () => {
  let server: TestServer;
  let a: Awaited<ReturnType<typeof alice>>;
  beforeAll(async () => {
    server = await startTestServer();
    a = await alice(server);
  });
  afterAll(async () => server?.close());

  it("waits, refuses an approval with the wrong method (leaving it waiting), and runs once at the right one", async () => {
    const mfaPolicyId = await a.mfaPolicy([PASSKEY]);
    const name = `tag ${randomUUID()}`;
    const { activity } = await a.createUserTag(a.clients.apiKey, name);
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    expect(activity.canApprove).toBe(true);
    expect(await tagsNamed(server.client(), name)).toEqual([]);

    for (const wrong of [a.clients.apiKey, a.clients.session]) {
      const refused = await httpRefusal(a.approve(wrong, activity.fingerprint));
      expect(refused.message).toContain("MFA");
      expect(refused.message).toContain("still needed: AUTHENTICATION_TYPE_PASSKEY");
    }
    const waiting = await server.client().getActivity({ activityId: activity.id });
    expect(waiting.activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    expect(waiting.activity.votes).toHaveLength(1);

    const before = await server.client().getMfaStatus({ activityId: activity.id });
    expect(before.mfaStatuses).toEqual([
      { mfaPolicyId, userId: a.userId, satisfied: false, satisfiedMethods: [], requiredMethods: [PASSKEY] },
    ]);

    const approved = await a.approve(a.clients.passkey, activity.fingerprint);
    expect(approved.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(approved.activity.result.createUserTagResult?.userTagId).toBeDefined();
    expect(approved.activity.votes).toHaveLength(2);
    expect(await tagsNamed(server.client(), name)).toHaveLength(1);

    const again = await httpRefusal(a.approve(a.clients.passkey, activity.fingerprint));
    expect(again.message).toContain("ACTIVITY_STATUS_COMPLETED");
    expect(await tagsNamed(server.client(), name)).toHaveLength(1);

    const after = await server.client().getMfaStatus({ activityId: activity.id, userId: a.userId });
    expect(after.mfaStatuses).toEqual([
      {
        mfaPolicyId,
        userId: a.userId,
        satisfied: true,
        satisfiedMethods: [{ type: "AUTHENTICATION_TYPE_PASSKEY", id: a.authenticatorId }],
        requiredMethods: [PASSKEY],
      },
    ]);
    await a.dropPolicies();
  });

  it("takes an approval with an attested stamp (X-Stamp-Attested) as the proof of an EMAIL_OTP step, each code once", async () => {
    const email = `alice-${randomUUID()}@example.com`;
    await server.client().updateUserEmail({ userId: a.userId, userEmail: email });
    await a.mfaPolicy([{ any: [{ type: "AUTHENTICATION_TYPE_EMAIL_OTP" }] }]);
    const name = `tag ${randomUUID()}`;
    const { activity } = await a.createUserTag(a.clients.apiKey, name);
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");

    // What @turnkey/core sends after verifyOtp: the code's verification token, bound to the key that stamps.
    const key = generateP256KeyPair();
    const { token } = await issueVerificationToken(
      server.services.signer,
      { verificationType: "OTP_TYPE_EMAIL", contact: email, organizationId: server.root.organizationId, publicKey: key.publicKey },
      300,
    );
    const attested = new AttestedStamper(new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }) as never);
    attested.configure({ attestedIdentity: token, publicKey: key.publicKey, scheme: AttestedScheme.P256_VERIFICATION_TOKEN });
    const viaCode = new TurnkeyClient({ baseUrl: server.url }, attested);
    const approved = await a.approve(viaCode, activity.fingerprint);
    expect(approved.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await tagsNamed(server.client(), name)).toHaveLength(1);

    // The same code proves nothing a second time.
    const next = await a.createUserTag(a.clients.apiKey);
    const reused = await httpRefusal(a.approve(viaCode, next.activity.fingerprint));
    expect(reused.message).toContain("already used");
    expect((await server.client().getActivity({ activityId: next.activity.id })).activity.status).toBe(
      "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED",
    );
    await a.dropPolicies();
  });

  it("takes a SESSION step pinned to a session profile only from a session issued under that profile", async () => {
    const { sessionProfileId } = await server.client().createSessionProfile({ sessionProfileName: `mfa ${randomUUID()}`, scope: "true" });
    await a.mfaPolicy([{ any: [{ type: "AUTHENTICATION_TYPE_SESSION", id: sessionProfileId }] }]);
    // Logged in before the activity is submitted: a session created after it proves no step of it.
    const profiled = generateP256KeyPair();
    await a.sdk.stampLogin({ publicKey: profiled.publicKey, sessionProfileId });
    const { activity } = await a.createUserTag(a.clients.apiKey);
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");

    const refused = await httpRefusal(a.approve(a.clients.session, activity.fingerprint));
    expect(refused.message).toContain(`AUTHENTICATION_TYPE_SESSION (${sessionProfileId})`);
    const underProfile = new TurnkeyClient(
      { baseUrl: server.url },
      new ApiKeyStamper({ apiPublicKey: profiled.publicKey, apiPrivateKey: profiled.privateKey }),
    );
    expect((await a.approve(underProfile, activity.fingerprint)).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    await a.dropPolicies();
  });

  it("gates signing behind a passkey with the documented condition activity.action == 'SIGN'", async () => {
    const { addresses } = await server.client().createWallet({
      walletName: `wallet ${randomUUID()}`,
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    await a.mfaPolicy([PASSKEY], "activity.action == 'SIGN'");
    const { activity } = await a.sdk.signRawPayload({
      signWith: addresses[0]!,
      payload: "abcd",
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_SHA256",
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    expect(activity.result).toEqual({});
    const done = await a.approve(a.clients.passkey, activity.fingerprint);
    expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(done.activity.result.signRawPayloadResult?.r).toMatch(/^[0-9a-f]{64}$/i);
    await a.dropPolicies();
  });

  it("prepares an activity that prepares (key generation) only at the approval that meets its MFA", async () => {
    await a.mfaPolicy([PASSKEY], "activity.resource == 'PRIVATE_KEY' && activity.action == 'CREATE'");
    const name = `key ${randomUUID()}`;
    const { activity } = await a.sdk.createPrivateKeys({
      privateKeys: [{ privateKeyName: name, curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const named = async () => (await server.client().getPrivateKeys({})).privateKeys.filter((k) => k.privateKeyName === name);
    expect(await named()).toEqual([]);
    const done = await a.approve(a.clients.passkey, activity.fingerprint);
    expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const [key] = await named();
    expect(done.activity.result.createPrivateKeysResultV2?.privateKeys[0]?.privateKeyId).toBe(key!.privateKeyId);
    await a.dropPolicies();
  });

  it("leaves activities its condition does not match alone, and answers no MFA status for them", async () => {
    await a.mfaPolicy([PASSKEY]);
    // A condition about keywords this activity lacks (eth.tx) errors, and so does not apply to it.
    await a.mfaPolicy([PASSKEY], "activity.action == 'SIGN' && eth.tx.value > 1000000000000000000");
    const { activity } = await a.sdk.createPrivateKeyTag({ privateKeyTagName: `pk ${randomUUID()}`, privateKeyIds: [] });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await server.client().getMfaStatus({ activityId: activity.id })).mfaStatuses).toEqual([]);
    await a.dropPolicies();
  });

  it("counts the submission's own credential as a proof", async () => {
    await a.mfaPolicy([SESSION, PASSKEY]);
    const { activity } = await a.createUserTag(a.clients.session);
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const status = await server.client().getMfaStatus({ activityId: activity.id });
    expect(status.mfaStatuses[0]!.satisfiedMethods).toEqual([{ type: "AUTHENTICATION_TYPE_SESSION" }]);
    expect((await a.approve(a.clients.passkey, activity.fingerprint)).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    await a.dropPolicies();
  });

  it("takes the steps in any order, each proven by a different credential", async () => {
    await a.mfaPolicy([SESSION, PASSKEY, API_KEY]);
    const { activity } = await a.createUserTag(a.clients.apiKey);
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const afterPasskey = await a.approve(a.clients.passkey, activity.fingerprint);
    expect(afterPasskey.activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const repeated = await httpRefusal(a.approve(a.clients.passkey, activity.fingerprint));
    expect(repeated.message).toContain("already proved a step");
    expect(repeated.message).toContain("still needed: AUTHENTICATION_TYPE_SESSION");
    const status = await server.client().getMfaStatus({ activityId: activity.id });
    expect(status.mfaStatuses[0]!.satisfiedMethods.map((m) => m.type).sort()).toEqual([
      "AUTHENTICATION_TYPE_API_KEY",
      "AUTHENTICATION_TYPE_PASSKEY",
    ]);
    const done = await a.approve(a.clients.session, activity.fingerprint);
    expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    await a.dropPolicies();
  });

  it("enforces only the first matching policy by order", async () => {
    const later = await a.mfaPolicy([PASSKEY], "true", 5);
    const first = await a.mfaPolicy([SESSION], "activity.resource == 'USER'", 1);
    const { activity } = await a.createUserTag(a.clients.apiKey);
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const [status] = (await server.client().getMfaStatus({ activityId: activity.id })).mfaStatuses;
    expect(status!.mfaPolicyId).toBe(first);
    expect(status!.mfaPolicyId).not.toBe(later);
    expect((await a.approve(a.clients.session, activity.fingerprint)).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    await a.dropPolicies();
  });

  it("applies every one of a user's MFA policies to changing their own MFA, whatever the conditions say", async () => {
    const signing = await a.mfaPolicy([PASSKEY], "activity.action == 'SIGN'");
    const { activity } = await a.clients.apiKey.deleteMfaPolicy({
      type: "ACTIVITY_TYPE_DELETE_MFA_POLICY",
      timestampMs: String(Date.now()),
      organizationId: server.root.organizationId,
      parameters: { userId: a.userId, mfaPolicyId: signing },
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    expect((await server.client().getMfaPolicies({ userId: a.userId })).mfaPolicies).toHaveLength(1);
    expect((await a.approve(a.clients.passkey, activity.fingerprint)).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await server.client().getMfaPolicies({ userId: a.userId })).mfaPolicies).toEqual([]);
  });
});

describe("MFA and consensus: both must hold", () => {
  let server: TestServer;
  let a: Awaited<ReturnType<typeof alice>>;
  beforeAll(async () => {
    server = await startTestServer();
    a = await alice(server);
    await a.mfaPolicy([PASSKEY]);
    await server.client().updateRootQuorum({ threshold: 2, userIds: [server.root.userId, a.userId] });
  });
  afterAll(async () => server?.close());

  it("shows AUTHENTICATORS_NEEDED while both are pending, and runs only once the requester's MFA is met too", async () => {
    const name = `tag ${randomUUID()}`;
    const { activity } = await a.createUserTag(a.clients.apiKey, name);
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const rootApproved = await server.client().approveActivity({ fingerprint: activity.fingerprint });
    expect(rootApproved.activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    expect(await tagsNamed(server.client(), name)).toEqual([]);
    const done = await a.approve(a.clients.passkey, activity.fingerprint);
    expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await tagsNamed(server.client(), name)).toHaveLength(1);
  });

  it("moves to CONSENSUS_NEEDED once MFA is met, and runs at the deciding approval", async () => {
    const { activity } = await a.createUserTag(a.clients.apiKey);
    const proven = await a.approve(a.clients.passkey, activity.fingerprint);
    expect(proven.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const done = await server.client().approveActivity({ fingerprint: activity.fingerprint });
    expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("counts an approver's vote toward consensus only once the approver's own MFA is met", async () => {
    const { activity } = await server.client().createUserTag({ userTagName: `tag ${randomUUID()}`, userIds: [] });
    expect(activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect((await server.client().getMfaStatus({ activityId: activity.id })).mfaStatuses).toEqual([]);
    const byKey = await a.approve(a.clients.apiKey, activity.fingerprint);
    expect(byKey.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const [status] = (await server.client().getMfaStatus({ activityId: activity.id })).mfaStatuses;
    expect(status).toMatchObject({ userId: a.userId, satisfied: false });
    const done = await a.approve(a.clients.passkey, activity.fingerprint);
    expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("lets a voter without pending MFA vote only once, as before", async () => {
    const { activity } = await a.createUserTag(a.clients.apiKey);
    await server.client().approveActivity({ fingerprint: activity.fingerprint });
    const twice = await refusal(server.client().approveActivity({ fingerprint: activity.fingerprint }));
    expect(twice.message).toContain("already voted");
    const rejected = await refusal(server.client().rejectActivity({ fingerprint: activity.fingerprint }));
    expect(rejected.message).toContain("already voted");
  });
});

describe("MFA proofs expire like approvals", () => {
  let server: TestServer;
  let now = Date.now();
  let a: Awaited<ReturnType<typeof alice>>;
  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(now) });
    a = await alice(server, () => now);
    await a.mfaPolicy([API_KEY, PASSKEY]);
  });
  afterAll(async () => server?.close());

  it("a proof older than 24 hours no longer counts, and must be given again", async () => {
    const { activity } = await a.createUserTag(a.clients.apiKey);
    expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    now += 25 * 3_600_000;
    const late = await a.approve(a.clients.passkey, activity.fingerprint);
    expect(late.activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
    const [status] = (await server.client().getMfaStatus({ activityId: activity.id })).mfaStatuses;
    expect(status!.satisfiedMethods).toEqual([{ type: "AUTHENTICATION_TYPE_PASSKEY", id: a.authenticatorId }]);
    const done = await a.approve(a.clients.apiKey, activity.fingerprint);
    expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });
});
