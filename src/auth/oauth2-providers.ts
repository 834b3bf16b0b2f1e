import type { OAuth2ProviderEndpoints, OAuthSettings } from "../config.js";
import { ApiError, GrpcCode } from "../errors.js";
import type { Oauth2Provider } from "../records/oauth2-credential.js";

/**
 * The plain OAuth 2.0 providers of oauth2_authenticate (no ID tokens): the authorization code is
 * exchanged with PKCE at the token endpoint (client authentication by HTTP Basic, which X requires of
 * confidential clients and Discord accepts), then the user's id is read from the user-info endpoint.
 */
interface ProviderSpec {
  name: string;
  /** The prefix of `sub` in Strongroom's OIDC tokens: `x:123456789`. */
  subjectPrefix: string;
  endpoints(settings: OAuthSettings): OAuth2ProviderEndpoints;
  userId(body: unknown): unknown;
}

const PROVIDERS: Record<Oauth2Provider, ProviderSpec> = {
  OAUTH2_PROVIDER_X: {
    name: "X",
    subjectPrefix: "x",
    endpoints: (settings) => settings.providers.x,
    userId: (body) => (body as { data?: { id?: unknown } } | null)?.data?.id,
  },
  OAUTH2_PROVIDER_DISCORD: {
    name: "Discord",
    subjectPrefix: "discord",
    endpoints: (settings) => settings.providers.discord,
    userId: (body) => (body as { id?: unknown } | null)?.id,
  },
};

export interface AuthorizationCodeExchange {
  clientId: string;
  clientSecret: string;
  authCode: string;
  redirectUri: string;
  codeVerifier: string;
}

export interface ProviderIdentity {
  /** `<provider>:<user id>`, e.g. `x:123456789`. */
  subject: string;
  accessToken: string;
}

/** A provider that refused, failed or could not be reached: the activity fails naming it (no documented turnkeyErrorCode fits). */
function providerError(code: number, message: string): ApiError {
  return new ApiError(code, message);
}

/** Removes the values that must never be echoed (the secret, the code, the verifier) from provider text. */
function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

/** The RFC 6749 §2.3.1 Basic credentials: both halves form-urlencoded first. */
function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString("base64")}`;
}

async function call(
  spec: ProviderSpec,
  what: string,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  secrets: string[],
): Promise<{ status: number; body: unknown; text: string }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason =
      (error as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : redact((error as Error).message, secrets);
    throw providerError(GrpcCode.UNAVAILABLE, `${spec.name} ${what} ${url} could not be reached: ${reason}`);
  }
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: reported as text below when it matters.
  }
  return { status: response.status, body, text };
}

function describeRefusal(body: unknown, text: string, secrets: string[]): string {
  const fields = body as { error?: unknown; error_description?: unknown; message?: unknown; title?: unknown; detail?: unknown } | undefined;
  const parts = [fields?.error, fields?.error_description, fields?.title, fields?.detail, fields?.message].filter(
    (p): p is string => typeof p === "string" && p.length > 0,
  );
  return redact(parts.length > 0 ? parts.join(": ") : text || "(empty body)", secrets);
}

export async function authenticateWithProvider(
  settings: OAuthSettings,
  provider: Oauth2Provider,
  exchange: AuthorizationCodeExchange,
): Promise<ProviderIdentity> {
  const spec = PROVIDERS[provider];
  const endpoints = spec.endpoints(settings);
  const secrets = [exchange.clientSecret, exchange.authCode, exchange.codeVerifier];

  const token = await call(
    spec,
    "token endpoint",
    endpoints.tokenUrl,
    {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
        authorization: basicAuthorization(exchange.clientId, exchange.clientSecret),
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: exchange.authCode,
        redirect_uri: exchange.redirectUri,
        code_verifier: exchange.codeVerifier,
        client_id: exchange.clientId,
      }).toString(),
    },
    settings.timeoutMs,
    secrets,
  );
  if (token.status < 200 || token.status >= 300) {
    throw providerError(
      GrpcCode.FAILED_PRECONDITION,
      `${spec.name} refused the authorization code (HTTP ${token.status}): ${describeRefusal(token.body, token.text, secrets)}`,
    );
  }
  const accessToken = (token.body as { access_token?: unknown } | undefined)?.access_token;
  if (typeof accessToken !== "string" || accessToken.length === 0) {
    throw providerError(GrpcCode.FAILED_PRECONDITION, `${spec.name} token endpoint answered without an access_token`);
  }

  const me = await call(
    spec,
    "user-info endpoint",
    endpoints.userInfoUrl,
    { method: "GET", headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" } },
    settings.timeoutMs,
    [...secrets, accessToken],
  );
  if (me.status < 200 || me.status >= 300) {
    throw providerError(
      GrpcCode.FAILED_PRECONDITION,
      `${spec.name} user-info endpoint refused the access token (HTTP ${me.status}): ${describeRefusal(me.body, me.text, [...secrets, accessToken])}`,
    );
  }
  const userId = spec.userId(me.body);
  if ((typeof userId !== "string" && typeof userId !== "number") || String(userId).length === 0) {
    throw providerError(
      GrpcCode.FAILED_PRECONDITION,
      `${spec.name} user-info endpoint answered without the user's id (${provider === "OAUTH2_PROVIDER_X" ? "data.id" : "id"})`,
    );
  }
  return { subject: `${spec.subjectPrefix}:${String(userId)}`, accessToken };
}
