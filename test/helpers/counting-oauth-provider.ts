import { encryptOauth2ClientSecret } from "@turnkey/crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { authorizeWithPkce } from "./oauth-authorization.js";
import { startOidcProvider } from "./oidc-provider.js";
import type { TestServer } from "./server.js";

/**
 * A real OAuth 2.0 server on loopback (oauth2-mock-server) playing X for oauth2_authenticate, whose token
 * endpoint sits behind a relay that counts each call (each redemption of a code) and answers after `delayMs`,
 * so that concurrent requests overlap.
 */
export interface CountingOAuthProvider {
  /** OAUTH2_X_TOKEN_URL, OAUTH2_X_USERINFO_URL and OAUTH2_TIMEOUT_MS for a Strongroom using it. */
  env: Record<string, string>;
  tokenCalls(): number;
  /** The user's part of an authorization-code + PKCE flow: a fresh code and its verifier. */
  authorize(clientId: string, redirectUri: string): Promise<{ authCode: string; codeVerifier: string }>;
  stop(): Promise<void>;
}

export async function startCountingOAuthProvider(delayMs = 300): Promise<CountingOAuthProvider> {
  const { provider, issuer } = await startOidcProvider();
  provider.service.addRoute("GET", "/2/users/me", (_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ data: { id: "42", username: "someone" } }));
  });
  let calls = 0;
  const relay: Server = createServer((req, res) => {
    calls++;
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
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  return {
    env: {
      OAUTH2_X_TOKEN_URL: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/token`,
      OAUTH2_X_USERINFO_URL: `${issuer}/2/users/me`,
      OAUTH2_TIMEOUT_MS: "5000",
    },
    tokenCalls: () => calls,
    async authorize(clientId, redirectUri) {
      const { code, codeVerifier } = await authorizeWithPkce(issuer, { clientId, redirectUri });
      return { authCode: code, codeVerifier };
    },
    async stop() {
      await new Promise((resolve) => relay.close(resolve));
      await provider.stop();
    },
  };
}

/** The root organization's OAuth 2.0 credential for X and `clientId` (its secret encrypted as the SDK does): its id. */
export async function createXCredential(server: TestServer, clientId: string): Promise<string> {
  const keys = (await (await fetch(`${server.url}/public/v1/discovery/keys`)).json()) as { encryptionPublicKey: string };
  const encryptedClientSecret = await encryptOauth2ClientSecret("client-secret", keys.encryptionPublicKey);
  const created = await server.client().createOauth2Credential({ provider: "OAUTH2_PROVIDER_X", clientId, encryptedClientSecret });
  return created.oauth2CredentialId;
}
