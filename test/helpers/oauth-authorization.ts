import { createHash, randomBytes } from "node:crypto";

/**
 * The user's part of an authorization-code + PKCE (S256) flow: a fresh code verifier, and the provider's
 * /authorize answered without following its redirect. `location` is where it redirected to, `code` the
 * code it carries.
 */
export async function authorizeWithPkce(
  issuer: string,
  request: { clientId: string; redirectUri: string; scope?: string; state?: string; nonce?: string },
) {
  const codeVerifier = randomBytes(32).toString("base64url");
  const url = new URL(`${issuer}/authorize`);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope ?? "users.read",
    state: request.state ?? "s",
    code_challenge: createHash("sha256").update(codeVerifier).digest("base64url"),
    code_challenge_method: "S256",
    ...(request.nonce ? { nonce: request.nonce } : {}),
  }).toString();
  const response = await fetch(url, { redirect: "manual" });
  const location = new URL(response.headers.get("location")!);
  return { status: response.status, location, code: location.searchParams.get("code")!, codeVerifier };
}
