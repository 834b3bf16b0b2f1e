import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { StamperType, TurnkeyClient as CoreClient, type MfaContext } from "@turnkey/core";
import { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";
import { createUserWithApiKey } from "../helpers/users.js";

const PASSKEY = { any: [{ type: "AUTHENTICATION_TYPE_PASSKEY" as const }] };
const API_KEY = { any: [{ type: "AUTHENTICATION_TYPE_API_KEY" as const }] };

describe("MFA policies through the SDK", () => {
  let server: TestServer;
  let root: ReturnType<TestServer["client"]>;
  let bob: { userId: string; client: ReturnType<TestServer["client"]>; apiKeyId: string };
  const authenticator = new SoftwareAuthenticator();
  let authenticatorId: string;

  beforeAll(async () => {
    server = await startTestServer();
    root = server.client();
    authenticator.install();
    const { userId: bobId, credentials } = await createUserWithApiKey(root, "bob");
    const challenge = randomBytes(32).toString("base64url");
    ({
      authenticatorIds: [authenticatorId = ""],
    } = await root.createAuthenticators({
      userId: bobId,
      authenticators: [{ authenticatorName: "bob passkey", challenge, attestation: authenticator.attest(challenge) }],
    }));
    bob = {
      userId: bobId,
      client: server.client(credentials),
      apiKeyId: (await root.getApiKeys({ userId: bobId })).apiKeys[0]!.apiKeyId,
    };
  });
  afterAll(async () => server?.close());

  it("creates, reads, lists, updates and deletes a user's MFA policies, shown on the user's record", async () => {
    const created = await root.createMfaPolicy({
      userId: bob.userId,
      mfaPolicyName: "passkey to sign",
      condition: "activity.action == 'SIGN'",
      requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_API_KEY", id: bob.apiKeyId }] }, PASSKEY],
      order: 2,
      notes: "signing needs two factors",
    });
    expect(created.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(created.activity.type).toBe("ACTIVITY_TYPE_CREATE_MFA_POLICY");
    const { mfaPolicyId } = created;
    const second = await root.createMfaPolicy({
      userId: bob.userId,
      mfaPolicyName: "exports",
      condition: "activity.action == 'EXPORT'",
      requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_PASSKEY", id: authenticatorId }] }],
      order: 1,
    });

    const { mfaPolicy } = await root.getMfaPolicy({ userId: bob.userId, mfaPolicyId });
    expect(mfaPolicy).toMatchObject({
      mfaPolicyId,
      mfaPolicyName: "passkey to sign",
      condition: "activity.action == 'SIGN'",
      requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_API_KEY", id: bob.apiKeyId }] }, PASSKEY],
      order: 2,
      notes: "signing needs two factors",
    });
    expect(mfaPolicy.createdAt.seconds).toMatch(/^[0-9]+$/);
    const listed = await root.getMfaPolicies({ userId: bob.userId });
    expect(listed.mfaPolicies.map((p) => p.mfaPolicyId)).toEqual([second.mfaPolicyId, mfaPolicyId]);

    const updated = await root.updateMfaPolicy({ userId: bob.userId, mfaPolicyId, order: 0, mfaPolicyName: "renamed" });
    expect(updated.mfaPolicyId).toBe(mfaPolicyId);
    const { user } = await root.getUser({ userId: bob.userId });
    expect(user.mfaPolicies.map((p) => [p.mfaPolicyName, p.order])).toEqual([
      ["renamed", 0],
      ["exports", 1],
    ]);
    expect(user.mfaPolicies[0]!.requiredAuthenticationMethods).toHaveLength(2);
    expect(user.mfaPolicies[1]!.requiredAuthenticationMethods).toEqual([
      { any: [{ type: "AUTHENTICATION_TYPE_PASSKEY", id: authenticatorId }] },
    ]);

    await root.deleteMfaPolicy({ userId: bob.userId, mfaPolicyId });
    await root.deleteMfaPolicy({ userId: bob.userId, mfaPolicyId: second.mfaPolicyId });
    expect((await root.getMfaPolicies({ userId: bob.userId })).mfaPolicies).toEqual([]);
    expect((await root.getUser({ userId: bob.userId })).user.mfaPolicies).toEqual([]);
    const gone = await refusal(root.getMfaPolicy({ userId: bob.userId, mfaPolicyId }));
    expect(gone.code).toBe(5);
  });

  it("refuses bad input with 400, writing nothing", async () => {
    const base = { userId: bob.userId, mfaPolicyName: "bad", condition: "true", requiredAuthenticationMethods: [PASSKEY], order: 0 };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ condition: "activity.action ==" }, "condition"],
      [{ condition: " " }, "condition: an MFA policy's condition must not be empty"],
      [{ requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_EMAIL_OTP", id: "a-code" }] }] }, "leave id out"],
      [{ requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_OAUTH", id: randomUUID() }] }] }, "has no OAuth provider"],
      [{ requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_API_KEY", id: "not-a-key" }] }] }, "has no API key"],
      [{ requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_PASSKEY", id: bob.apiKeyId }] }] }, "has no authenticator"],
      [{ requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_SESSION", id: randomUUID() }] }] }, "session profile"],
      [{ requiredAuthenticationMethods: Array.from({ length: 6 }, () => PASSKEY) }, "requiredAuthenticationMethods"],
      [{ requiredAuthenticationMethods: [] }, "requiredAuthenticationMethods"],
      [{ userId: randomUUID() }, "userId"],
    ];
    for (const [change, says] of cases) {
      const refused = await refusal(root.createMfaPolicy({ ...base, ...change } as never));
      expect(refused.code, says).toBe(3);
      expect(refused.message).toContain(says);
    }
    expect((await root.getMfaPolicies({ userId: bob.userId })).mfaPolicies).toEqual([]);
  });

  it("caps a user's MFA policies at 10", async () => {
    for (let i = 0; i < 10; i++)
      await root.createMfaPolicy({
        userId: bob.userId,
        mfaPolicyName: `p${i}`,
        condition: "false",
        requiredAuthenticationMethods: [PASSKEY],
        order: i,
      });
    const refused = await refusal(
      root.createMfaPolicy({
        userId: bob.userId,
        mfaPolicyName: "p10",
        condition: "false",
        requiredAuthenticationMethods: [PASSKEY],
        order: 10,
      }),
    );
    expect(refused.code).toBe(3);
    expect(refused.message).toContain("already has 10 MFA policies, the most one user may have");
    for (const { mfaPolicyId } of (await root.getMfaPolicies({ userId: bob.userId })).mfaPolicies)
      await root.deleteMfaPolicy({ userId: bob.userId, mfaPolicyId });
  });

  it("lets a user add MFA to themselves, but not change or delete it, nor touch anyone else's, without a policy", async () => {
    const own = await bob.client.createMfaPolicy({
      userId: bob.userId,
      mfaPolicyName: "mine",
      condition: "activity.action == 'SIGN'",
      requiredAuthenticationMethods: [PASSKEY],
      order: 0,
    });
    expect(own.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    // Deleting (or changing) it is for the policies to allow, as any activity; here none does.
    const denied = await refusal(bob.client.deleteMfaPolicy({ userId: bob.userId, mfaPolicyId: own.mfaPolicyId }));
    expect(denied.code).toBe(7);
    expect(denied.message).toContain("implicit deny");
    expect((await root.getMfaPolicies({ userId: bob.userId })).mfaPolicies).toHaveLength(1);

    const forRoot = await refusal(
      bob.client.createMfaPolicy({
        userId: server.root.userId,
        mfaPolicyName: "lockout",
        condition: "true",
        requiredAuthenticationMethods: [API_KEY],
        order: 0,
      }),
    );
    expect(forRoot.code).toBe(7);
    await root.deleteMfaPolicy({ userId: bob.userId, mfaPolicyId: own.mfaPolicyId });
    expect((await root.getMfaPolicies({ userId: bob.userId })).mfaPolicies).toEqual([]);
  });

  it("answers get_mfa_status for an unknown activity with 404", async () => {
    const missing = await refusal(root.getMfaStatus({ activityId: randomUUID() }));
    expect(missing.code).toBe(5);
  });

  it("satisfies @turnkey/core's onMfaRequired flow: the callback approves with a passkey, and the call resolves with the result", async () => {
    // The root user gets a passkey of its own, then an MFA policy for creating users and tags.
    const rootPasskey = new SoftwareAuthenticator();
    rootPasskey.install();
    const challenge = randomBytes(32).toString("base64url");
    await root.createAuthenticators({
      userId: server.root.userId,
      authenticators: [{ authenticatorName: "root passkey", challenge, attestation: rootPasskey.attest(challenge) }],
    });
    await root.createMfaPolicy({
      userId: server.root.userId,
      mfaPolicyName: "tags need a passkey",
      condition: "activity.resource == 'USER' && activity.action == 'CREATE'",
      requiredAuthenticationMethods: [API_KEY, PASSKEY],
      order: 0,
    });
    const contexts: MfaContext[] = [];
    const core = new CoreClient(
      {
        apiBaseUrl: server.url,
        organizationId: server.root.organizationId,
        onMfaRequired: async (context) => {
          contexts.push(context);
          await http.approveActivity({ fingerprint: context.fingerprint }, StamperType.Passkey);
        },
      },
      new ApiKeyStamper({ apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! }) as never,
      new WebauthnStamper({ rpId: rootPasskey.rpId }) as never,
    );
    const http = core.createHttpClient();
    const done = await http.createUserTag({ userTagName: `core ${randomUUID()}`, userIds: [] });
    expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(done.userTagId).toBe(done.activity.result.createUserTagResult?.userTagId);
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({
      activityStatus: "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED",
      activityType: "ACTIVITY_TYPE_CREATE_USER_TAG",
      fingerprint: done.activity.fingerprint,
      mfaStatuses: [
        {
          userId: server.root.userId,
          satisfied: false,
          satisfiedMethods: [{ type: "AUTHENTICATION_TYPE_API_KEY" }],
          requiredMethods: [API_KEY, PASSKEY],
        },
      ],
    });
    expect(done.activity.votes).toHaveLength(2);
  });
});
