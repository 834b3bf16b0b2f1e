import { encryptOauth2ClientSecret, generateP256KeyPair } from "@turnkey/crypto";
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * An activity's outside effect — oauth2_authenticate redeeming an authorization code at the provider's token
 * endpoint — happens only once the decision allows the activity, and once per activity: never for a denied
 * request, not while it waits for consensus (at its deciding approval instead), and not again for a twin body
 * sent at the same time. A real OAuth 2.0 server (oauth2-mock-server) on loopback plays X; its token endpoint
 * sits behind a counting relay that answers slowly, so that concurrent requests overlap.
 */
const CLIENT_ID = "pipeline-test-client";
const REDIRECT_URI = "https://app.example/oauth/callback";

describe("outside calls of oauth2_authenticate", () => {
  let provider: OAuth2Server;
  let relay: Server;
  let server: TestServer;
  let issuer: string;
  let credentialId: string;
  let tokenCalls = 0;

  beforeAll(async () => {
    provider = new OAuth2Server();
    await provider.issuer.keys.generate("ES256");
    await provider.start(0, "127.0.0.1");
    issuer = `http://127.0.0.1:${provider.address().port}`;
    provider.issuer.url = issuer;
    provider.service.addRoute("GET", "/2/users/me", (_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ data: { id: "42", username: "someone" } }));
    });
    // The token endpoint, counted and slowed down: each call is one redemption of a code.
    relay = createServer((req, res) => {
      tokenCalls++;
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        setTimeout(() => {
          fetch(`${issuer}/token`, {
            method: "POST",
            headers: { "content-type": String(req.headers["content-type"]), authorization: String(req.headers.authorization ?? "") },
            body: Buffer.concat(chunks),
          })
            .then(async (answer) => {
              res.statusCode = answer.status;
              res.setHeader("content-type", answer.headers.get("content-type") ?? "application/json");
              res.end(await answer.text());
            })
            .catch(() => {
              res.statusCode = 502;
              res.end();
            });
        }, 300);
      });
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    server = await startTestServer({
      env: {
        OAUTH2_X_TOKEN_URL: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/token`,
        OAUTH2_X_USERINFO_URL: `${issuer}/2/users/me`,
        OAUTH2_TIMEOUT_MS: "5000",
      },
    });
    const keys = (await (await fetch(`${server.url}/public/v1/discovery/keys`)).json()) as { encryptionPublicKey: string };
    const encryptedClientSecret = await encryptOauth2ClientSecret("client-secret", keys.encryptionPublicKey);
    credentialId = (
      await server.client().createOauth2Credential({ provider: "OAUTH2_PROVIDER_X", clientId: CLIENT_ID, encryptedClientSecret })
    ).oauth2CredentialId;
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => relay?.close(resolve));
    await provider?.stop();
  });

  /** The user's part of an authorization-code + PKCE flow: a fresh code and its verifier. */
  async function authorize() {
    const codeVerifier = randomBytes(32).toString("base64url");
    const url = new URL(`${issuer}/authorize`);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      scope: "users.read",
      state: "s",
      code_challenge: createHash("sha256").update(codeVerifier).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    const response = await fetch(url, { redirect: "manual" });
    const code = new URL(response.headers.get("location")!).searchParams.get("code")!;
    return { oauth2CredentialId: credentialId, authCode: code, redirectUri: REDIRECT_URI, codeVerifier, nonce: "ab".repeat(32) };
  }

  async function addUser(name: string) {
    const key = generateP256KeyPair();
    const { userIds } = await server.client().createUsers({
      users: [
        {
          userName: name,
          apiKeys: [{ apiKeyName: `${name} key`, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    return { userId: userIds[0]!, client: server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }) };
  }

  it("a denied request does not redeem the code", async () => {
    const eve = await addUser("eve"); // not in the root quorum, and no policy allows her anything
    const before = tokenCalls;
    const denied = await refusal(eve.client.oauth2Authenticate(await authorize()));
    expect(denied.code).toBe(7);
    expect(tokenCalls - before).toBe(0);
  });

  it("two identical bodies sent at once redeem the code once and answer the same activity", async () => {
    const body = activityBody("ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", server.root.organizationId, await authorize());
    const stamp = { "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!) };
    const before = tokenCalls;
    const answers = await Promise.all([0, 1].map(() => post(`${server.url}/public/v1/submit/oauth2_authenticate`, body, stamp)));
    const activities = answers.map((a) => a.json.activity as { id: string; status: string; result: Record<string, unknown> });
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(activities[0]!.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activities[1]!.id).toBe(activities[0]!.id);
    expect(tokenCalls - before).toBe(1);

    const again = await post(`${server.url}/public/v1/submit/oauth2_authenticate`, body, stamp);
    expect((again.json.activity as { id: string }).id).toBe(activities[0]!.id);
    expect(tokenCalls - before).toBe(1);
  });

  it("one that waits for consensus redeems the code once, at its deciding approval", async () => {
    const bob = await addUser("bob");
    await server.client().updateRootQuorum({ threshold: 2, userIds: [server.root.userId, bob.userId] });
    const before = tokenCalls;
    const submitted = await server.client().oauth2Authenticate(await authorize());
    expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(tokenCalls - before).toBe(0);

    const approved = await bob.client.approveActivity({ fingerprint: submitted.activity.fingerprint });
    expect(approved.activity.status, JSON.stringify(approved.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((approved.activity.result.oauth2AuthenticateResult as { oidcToken?: string }).oidcToken).toBeTruthy();
    expect(tokenCalls - before).toBe(1);
  });
});
