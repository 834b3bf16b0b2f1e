import { generateP256KeyPair, verifySessionJwtSignature } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey, userWithApiKey } from "../helpers/users.js";

const claimsOf = (session: string) => JSON.parse(Buffer.from(session.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

describe("session profiles through @turnkey/sdk-server", () => {
  let server: TestServer;
  let now = Date.now();
  let taggerId: string;

  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(now) });
    ({ sessionProfileId: taggerId } = await server.client().createSessionProfile({
      sessionProfileName: "tagger",
      scope: "activity.resource == 'USER' && activity.kind == 'CREATE_USER_TAG'",
      notes: "may only tag users",
    }));
  });
  afterAll(async () => server.close());

  it("are created once, immutable by name, and read back whole", async () => {
    const { sessionProfile } = await server.client().getSessionProfile({ sessionProfileId: taggerId });
    expect(sessionProfile).toMatchObject({
      sessionProfileId: taggerId,
      sessionProfileName: "tagger",
      scope: "activity.resource == 'USER' && activity.kind == 'CREATE_USER_TAG'",
      notes: "may only tag users",
    });
    expect(sessionProfile.expirationSeconds).toBeUndefined();
    expect(sessionProfile.createdAt).toEqual(sessionProfile.updatedAt);
    const again = await server.client().createSessionProfile({ sessionProfileName: "tagger", scope: "true" });
    expect(again.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(again.activity.failure?.message).toContain('sessionProfileName: a session profile named "tagger" already exists');
    const listed = (await server.client().getSessionProfiles({})).sessionProfiles.map((p) => p.sessionProfileName);
    expect(listed).toContain("tagger");
    const missing = await refusal(server.client().getSessionProfile({ sessionProfileId: "no-such-profile" }));
    expect(missing.code).toBe(5);
  });

  it("refuse a scope the policy language does not accept, naming the field", async () => {
    const syntax = await refusal(server.client().createSessionProfile({ sessionProfileName: "broken", scope: "activity.type ==" }));
    expect(syntax.code).toBe(3);
    expect(syntax.message).toContain("scope: invalid policy condition");
    const wrongKeyword = await refusal(
      server.client().createSessionProfile({ sessionProfileName: "broken", scope: "approvers.count() > 1" }),
    );
    expect(wrongKeyword.message).toContain("unknown name 'approvers'");
    const blank = await refusal(server.client().createSessionProfile({ sessionProfileName: "broken", scope: "  " }));
    expect(blank.message).toContain("scope: must be a policy-language condition");
    const lifetime = await refusal(
      server.client().createSessionProfile({ sessionProfileName: "broken", scope: "true", expirationSeconds: "0" }),
    );
    expect(lifetime.message).toContain("expirationSeconds");
    expect((await server.client().getSessionProfiles({})).sessionProfiles.map((p) => p.sessionProfileName)).not.toContain("broken");
  });

  it("a login under a profile carries its name as the session type; in-scope requests pass, others get 403 naming it", async () => {
    const key = generateP256KeyPair();
    const { session } = await server.client().stampLogin({ publicKey: key.publicKey, sessionProfileId: taggerId });
    await expect(verifySessionJwtSignature(session, server.services.signer.publicKeyHex)).resolves.toBe(true);
    expect(claimsOf(session)).toMatchObject({
      session_type: "tagger",
      session_profile_id: taggerId,
      scope: "activity.resource == 'USER' && activity.kind == 'CREATE_USER_TAG'",
      user_id: server.root.userId,
      public_key: key.publicKey,
    });
    const { user } = await server.client().getUser({ userId: server.root.userId });
    expect(user.apiKeys.find((k) => k.credential.publicKey === key.publicKey)?.credential).toEqual({
      publicKey: key.publicKey,
      type: "CREDENTIAL_TYPE_LOGIN",
      sessionProfileId: taggerId,
    });
    const sessionClient = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
    const tagged = await sessionClient.createUserTag({ userTagName: "tagged under a profile", userIds: [] });
    expect(tagged.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await sessionClient.getWhoami({})).userId).toBe(server.root.userId);

    const walletsBefore = (await server.client().getWallets({})).wallets.length;
    const outside = await refusal(sessionClient.createWallet({ walletName: "not in scope", accounts: [] }));
    expect(outside.code).toBe(7);
    expect(outside.message).toContain(`ACTIVITY_TYPE_CREATE_WALLET is outside the scope of session profile "tagger" (${taggerId})`);
    expect(outside.message).toContain("evaluated to false");
    expect((await server.client().getWallets({})).wallets.length).toBe(walletsBefore);
    // Votes are bound too.
    const vote = await refusal(sessionClient.approveActivity({ fingerprint: "sha256:00" }));
    expect(vote.code).toBe(7);
    expect(vote.message).toContain('ACTIVITY_TYPE_APPROVE_ACTIVITY is outside the scope of session profile "tagger"');

    // The same user's other credentials are not bound by the profile.
    expect((await server.client().createWallet({ walletName: "root may", accounts: [] })).walletId).toBeTruthy();
  });

  it("a scope reading a keyword the activity has no value for refuses rather than allows", async () => {
    const { sessionProfileId } = await server.client().createSessionProfile({
      sessionProfileName: "wallet exporter",
      scope: "wallet.label == 'cold'",
    });
    const key = generateP256KeyPair();
    await server.client().stampLogin({ publicKey: key.publicKey, sessionProfileId });
    const sessionClient = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
    const refused = await refusal(sessionClient.createUserTag({ userTagName: "no wallet here", userIds: [] }));
    expect(refused.code).toBe(7);
    expect(refused.message).toContain('session profile "wallet exporter"');
    expect(refused.message).toContain("could not be evaluated");
  });

  it("an unknown profile id is a 400 naming sessionProfileId, for stamp_login, otp_login and oauth_login", async () => {
    const key = generateP256KeyPair();
    const stamp = await refusal(server.client().stampLogin({ publicKey: key.publicKey, sessionProfileId: "no-such-profile" }));
    expect(stamp.code).toBe(3);
    expect(stamp.message).toContain('sessionProfileId: no session profile "no-such-profile"');
    const otp = await refusal(
      server.client().otpLogin({
        verificationToken: "not-checked-before-the-profile",
        publicKey: key.publicKey,
        clientSignature: { publicKey: key.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message: "{}", signature: "00" },
        sessionProfileId: "no-such-profile",
      }),
    );
    expect(otp.message).toContain("sessionProfileId: no session profile");
    const oauth = await refusal(
      server
        .client()
        .oauthLogin({ oidcToken: "not-checked-before-the-profile", publicKey: key.publicKey, sessionProfileId: "no-such-profile" }),
    );
    expect(oauth.message).toContain("sessionProfileId: no session profile");
    // Nothing was registered for the refused logins.
    const { user } = await server.client().getUser({ userId: server.root.userId });
    expect(user.apiKeys.map((k) => k.credential.publicKey)).not.toContain(key.publicKey);
  });

  it("the profile's lifetime caps its sessions: past it, the session key is refused as expired", async () => {
    const { sessionProfileId } = await server.client().createSessionProfile({
      sessionProfileName: "one minute",
      scope: "true",
      expirationSeconds: "60",
    });
    const key = generateP256KeyPair();
    const { session } = await server.client().stampLogin({ publicKey: key.publicKey, sessionProfileId, expirationSeconds: "900" });
    expect(Number(claimsOf(session).exp)).toBe(Math.floor(now / 1000) + 60);
    const sessionClient = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
    expect((await sessionClient.createUserTag({ userTagName: "within the minute", userIds: [] })).activity.status).toBe(
      "ACTIVITY_STATUS_COMPLETED",
    );
    now += 61_000;
    const expired = await refusal(sessionClient.getWhoami({}));
    expect(expired.code).toBe(16);
    expect(expired.message).toContain("expired");
    now = Date.now();
  });

  it("a sub-organization sees its parent's profiles and logs in under them", async () => {
    const key = generateP256KeyPair();
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: "child",
      rootQuorumThreshold: 1,
      rootUsers: [userWithApiKey("child root", key.publicKey, { apiKeyName: "k" })],
    });
    const child = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }, subOrganizationId);
    expect((await child.getSessionProfiles({})).sessionProfiles.map((p) => p.sessionProfileId)).toContain(taggerId);
    const sessionKey = generateP256KeyPair();
    const { session } = await child.stampLogin({ publicKey: sessionKey.publicKey, sessionProfileId: taggerId });
    expect(claimsOf(session)).toMatchObject({ session_type: "tagger", organization_id: subOrganizationId });
    const childSession = server.client({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }, subOrganizationId);
    expect((await refusal(childSession.createWallet({ walletName: "no", accounts: [] }))).message).toContain('session profile "tagger"');
  });

  it("policies see a login's session_profile_id, empty when it names none", async () => {
    const { userId: aliceId, credentials } = await createUserWithApiKey(server.client(), "alice", { apiKeyName: "alice" });
    const alice = server.client(credentials);
    const { policyId } = await server.client().createPolicy({
      policyName: "logins name a profile",
      effect: "EFFECT_DENY",
      consensus: `approvers.any(user, user.id == '${aliceId}')`,
      condition: "activity.type == 'ACTIVITY_TYPE_STAMP_LOGIN' && activity.params.session_profile_id == ''",
      notes: "",
    });
    const bare = await refusal(alice.stampLogin({ publicKey: generateP256KeyPair().publicKey }));
    expect(bare.code).toBe(7);
    expect(bare.message).toContain(`denied by policy ${policyId}`);
    const { session } = await alice.stampLogin({ publicKey: generateP256KeyPair().publicKey, sessionProfileId: taggerId });
    expect(claimsOf(session)).toMatchObject({ session_type: "tagger", user_id: aliceId });
  });
});
