import { StamperType } from "@turnkey/core";
import { generateP256KeyPair } from "@turnkey/crypto";
import { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, coreClient, submitAsRoot } from "../helpers/auth-proxy.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";

/**
 * /v1/account by CREDENTIAL_ID finds a passkey only once it has made an accepted stamp: registering a
 * credential id proves nothing about who holds the passkey (a "none" attestation can name any id).
 */
describe("account lookup by passkey credential id", () => {
  let server: TestServer;
  let configId: string;

  beforeAll(async () => {
    server = await startTestServer();
    await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      sessionExpirationSeconds: 900,
    });
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
  });
  afterAll(async () => server.close());

  it("finds a passkey's sub-organization only after the passkey's first accepted stamp", async () => {
    const authenticator = new SoftwareAuthenticator();
    const challenge = randomBytes(32).toString("base64url");
    const signedUp = await coreClient(server, configId).proxySignupV2({
      userName: "pat",
      apiKeys: [],
      authenticators: [{ authenticatorName: "pat's laptop", challenge, attestation: authenticator.attest(challenge) }],
      oauthProviders: [],
    });
    const lookup = () =>
      coreClient(server, configId).proxyGetAccount({ filterType: "CREDENTIAL_ID", filterValue: authenticator.credentialIdB64url });
    expect(await lookup()).toEqual({});

    authenticator.install();
    const sessionKey = generateP256KeyPair();
    const http = coreClient(server, configId, new WebauthnStamper({ rpId: authenticator.rpId }));
    const { session } = await http.stampLogin(
      { publicKey: sessionKey.publicKey, organizationId: signedUp.organizationId },
      StamperType.Passkey,
    );
    expect(claimsOf(session)).toMatchObject({ organization_id: signedUp.organizationId, user_id: signedUp.userId });
    expect(await lookup()).toEqual({ organizationId: signedUp.organizationId });
  });
});
