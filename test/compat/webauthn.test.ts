import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("passkeys: registration by attestation and X-Stamp-WebAuthn with @turnkey/webauthn-stamper", () => {
  let server: TestServer;
  let userId: string;
  let authenticatorId: string;
  const authenticator = new SoftwareAuthenticator();
  const passkeyClient = () => new TurnkeyClient({ baseUrl: server.url }, new WebauthnStamper({ rpId: authenticator.rpId }));

  beforeAll(async () => {
    server = await startTestServer();
    authenticator.install();
    const { userIds } = await server.client().createUsers({
      users: [{ userName: "passkey user", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
    });
    userId = userIds[0]!;
    const challenge = randomBytes(32).toString("base64url");
    const created = await server.client().createAuthenticators({
      userId,
      authenticators: [{ authenticatorName: "laptop", challenge, attestation: authenticator.attest(challenge) }],
    });
    expect(created.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    authenticatorId = created.authenticatorIds[0]!;
  });
  afterAll(async () => server.close());

  it("stores the passkey with its credential id and COSE key", async () => {
    const { authenticator: record } = await server.client().getAuthenticator({ authenticatorId });
    expect(record).toMatchObject({
      authenticatorId,
      authenticatorName: "laptop",
      credentialId: authenticator.credentialIdB64url,
      attestationType: "none",
      transports: ["AUTHENTICATOR_TRANSPORT_INTERNAL"],
      credential: { type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR" },
    });
    expect((await server.client().getAuthenticators({ userId })).authenticators).toHaveLength(1);
  });

  it("authenticates queries and activities stamped by the passkey", async () => {
    const whoami = await passkeyClient().getWhoami({ organizationId: server.root.organizationId });
    expect(whoami.userId).toBe(userId);
    const { activity } = await passkeyClient().createApiKeys({
      type: "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
      timestampMs: String(Date.now()),
      organizationId: server.root.organizationId,
      parameters: {
        userId,
        apiKeys: [{ apiKeyName: "from passkey", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
      },
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activity.votes[0]).toMatchObject({ userId, scheme: "SIGNATURE_SCHEME_TK_API_WEBAUTHN" });
  });

  it("refuses a signature counter that did not grow", async () => {
    await passkeyClient().getWhoami({ organizationId: server.root.organizationId });
    authenticator.counter -= 2;
    const error = await passkeyClient()
      .getWhoami({ organizationId: server.root.organizationId })
      .catch((e: unknown) => e);
    expect((error as { code?: number }).code).toBe(16);
    expect((error as Error).message).toContain("counter");
    authenticator.counter += 10;
  });

  it("refuses a stamp over different bytes than those sent", async () => {
    const stamper = new WebauthnStamper({ rpId: authenticator.rpId });
    const body = JSON.stringify({ organizationId: server.root.organizationId });
    const stamp = await stamper.stamp(body);
    const response = await fetch(`${server.url}/public/v1/query/whoami`, {
      method: "POST",
      body: body.replace("}", " }"),
      headers: { "content-type": "application/json", [stamp.stampHeaderName]: stamp.stampHeaderValue },
    });
    expect(response.status).toBe(401);
  });

  it("refuses an unknown credential, naming the organization", async () => {
    const stranger = new SoftwareAuthenticator();
    stranger.install();
    const error = await passkeyClient()
      .getWhoami({ organizationId: server.root.organizationId })
      .catch((e: unknown) => e);
    authenticator.install();
    expect((error as { code?: number }).code).toBe(16);
    expect((error as Error).message).toContain(server.root.organizationId);
  });

  it("deletes the passkey, after which its stamps are refused", async () => {
    await server.client().deleteAuthenticators({ userId, authenticatorIds: [authenticatorId] });
    const error = await passkeyClient()
      .getWhoami({ organizationId: server.root.organizationId })
      .catch((e: unknown) => e);
    expect((error as { code?: number }).code).toBe(16);
  });
});
