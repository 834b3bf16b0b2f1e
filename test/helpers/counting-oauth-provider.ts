import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OAuth2Server } from "oauth2-mock-server";

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
  const provider = new OAuth2Server();
  await provider.issuer.keys.generate("ES256");
  await provider.start(0, "127.0.0.1");
  const issuer = `http://127.0.0.1:${provider.address().port}`;
  provider.issuer.url = issuer;
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
      const codeVerifier = randomBytes(32).toString("base64url");
      const url = new URL(`${issuer}/authorize`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: "users.read",
        state: "s",
        code_challenge: createHash("sha256").update(codeVerifier).digest("base64url"),
        code_challenge_method: "S256",
      }).toString();
      const response = await fetch(url, { redirect: "manual" });
      return { authCode: new URL(response.headers.get("location")!).searchParams.get("code")!, codeVerifier };
    },
    async stop() {
      await new Promise((resolve) => relay.close(resolve));
      await provider.stop();
    },
  };
}
