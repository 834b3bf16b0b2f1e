import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import {
  SignJWT,
  calculateJwkThumbprint,
  createRemoteJWKSet,
  decodeJwt,
  errors,
  exportJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
} from "jose";
import type { ServerKey } from "../crypto/server-keys.js";
import { ApiError, GrpcCode, invalidArgument } from "../errors.js";
import type { Services } from "../services.js";
import type { Queryable } from "../store/database.js";

/**
 * Strongroom as an OIDC issuer (tokens of oauth2_authenticate: ES256 by the signer key, JWKS and
 * discovery under its public URL) and as a verifier of OIDC tokens for oauth_login: its own, or those of
 * the issuers OIDC_ISSUERS names, whose keys are found by OIDC discovery.
 */

/** Lifetime of the OIDC tokens oauth2_authenticate issues: long enough for the following oauth_login. */
export const OIDC_TOKEN_SECONDS = 300;
export const JWKS_PATH = "/.well-known/jwks.json";
export const DISCOVERY_PATH = "/.well-known/openid-configuration";

const keyIds = new WeakMap<ServerKey, Promise<JWK & { kid: string }>>();

/** The signer key as a public JWK, with its RFC 7638 thumbprint as `kid`. */
export function signerJwk(signer: ServerKey): Promise<JWK & { kid: string }> {
  let jwk = keyIds.get(signer);
  if (!jwk) {
    jwk = (async () => {
      const exported = await exportJWK(signer.publicKey);
      const publicJwk = { kty: exported.kty, crv: exported.crv, x: exported.x, y: exported.y };
      return { ...publicJwk, kid: await calculateJwkThumbprint(publicJwk), alg: "ES256", use: "sig" };
    })();
    keyIds.set(signer, jwk);
  }
  return jwk;
}

export async function oidcJwks(signer: ServerKey): Promise<{ keys: JWK[] }> {
  return { keys: [await signerJwk(signer)] };
}

/** The discovery document: what OIDC clients (jose, openid-client) need to verify Strongroom's tokens. */
export function openIdConfiguration(issuer: string): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["ES256"],
    claims_supported: ["iss", "sub", "aud", "exp", "iat", "nonce", "encrypted_bearer_token"],
  };
}

export interface IssuedClaims {
  sub: string;
  aud: string;
  nonce: string;
  encrypted_bearer_token?: string;
}

export async function issueOidcToken(services: Pick<Services, "signer" | "oauth">, claims: IssuedClaims, now: Date): Promise<string> {
  const jwk = await signerJwk(services.signer);
  const iat = Math.floor(now.getTime() / 1000);
  const { sub, aud, ...rest } = claims;
  return new SignJWT({ ...rest })
    .setProtectedHeader({ alg: "ES256", typ: "JWT", kid: jwk.kid })
    .setIssuer(services.oauth.issuer)
    .setSubject(sub)
    .setAudience(aud)
    .setIssuedAt(iat)
    .setExpirationTime(iat + OIDC_TOKEN_SECONDS)
    .sign(services.signer.privateKey);
}

/** What oauth_login requires of the token's nonce (or tknonce): hex(sha256(utf8(the session public key's hex))). */
export function loginNonce(publicKey: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(publicKey)));
}

const ASYMMETRIC_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];
const trimSlashes = (url: string) => url.replace(/\/+$/, "");

const invalidToken = (field: string, reason: string) =>
  invalidArgument(`${field}: ${reason}`, "INVALID_OIDC_TOKEN", [{ field, description: reason }]);

/** Remote key sets of configured issuers, by issuer, found once by discovery (jose caches the keys). */
const remoteKeySets = new Map<string, JWTVerifyGetKey>();

async function issuerKeySet(issuer: string, timeoutMs: number): Promise<JWTVerifyGetKey> {
  const known = remoteKeySets.get(issuer);
  if (known) return known;
  const url = `${issuer}${DISCOVERY_PATH}`;
  let metadata: { issuer?: unknown; jwks_uri?: unknown };
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    metadata = (await response.json()) as typeof metadata;
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (error as Error).message;
    throw new ApiError(GrpcCode.UNAVAILABLE, `OIDC discovery of issuer ${issuer} failed (${url}): ${reason}`);
  }
  if (typeof metadata.issuer !== "string" || trimSlashes(metadata.issuer) !== issuer || typeof metadata.jwks_uri !== "string") {
    throw new ApiError(GrpcCode.UNAVAILABLE, `OIDC discovery of issuer ${issuer} (${url}) does not name that issuer and a jwks_uri`);
  }
  const keySet = createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: timeoutMs });
  remoteKeySets.set(issuer, keySet);
  return keySet;
}

export interface VerifiedOidcToken {
  iss: string;
  sub: string;
  audiences: string[];
  nonce?: string;
  tknonce?: string;
  /** The `email` claim, when the issuer says it verified it (`email_verified` true). */
  verifiedEmail?: string;
  /**
   * What identifies this token when it is spent (spendOidcToken): hex sha256 of its issuer and `jti`, or, without
   * a `jti`, of its signed claims as decoded — never of the token's text, whose ECDSA signature can be re-encoded.
   */
  replayKey: string;
  /** When the token expires (`exp`); until then it is remembered once spent. */
  expiresAt: Date;
}

/**
 * Verifies an OIDC token from Strongroom itself or from a configured issuer: signature, `iss`, `exp`,
 * and that `sub` and `aud` are present. Which audience is acceptable is decided by the caller (the
 * user's registered OAuth providers). Anything wrong is a 400 with INVALID_OIDC_TOKEN saying what.
 */
export async function verifyOidcToken(
  services: Pick<Services, "signer" | "oauth">,
  token: string,
  now: Date,
  field = "oidcToken",
): Promise<VerifiedOidcToken> {
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(token);
  } catch (error) {
    throw invalidToken(field, `not a decodable JWT (${(error as Error).message})`);
  }
  if (typeof unverified.iss !== "string" || unverified.iss.length === 0) throw invalidToken(field, "the token has no iss claim");
  const issuer = trimSlashes(unverified.iss);
  const ownIssuer = trimSlashes(services.oauth.issuer);
  let key: JWTVerifyGetKey | CryptoKeyLike;
  let algorithms: string[];
  if (issuer === ownIssuer) {
    key = services.signer.publicKey;
    algorithms = ["ES256"];
  } else if (services.oauth.oidcIssuers.includes(issuer)) {
    key = await issuerKeySet(issuer, services.oauth.timeoutMs);
    algorithms = ASYMMETRIC_ALGORITHMS;
  } else {
    const accepted = [ownIssuer, ...services.oauth.oidcIssuers].join(", ");
    throw invalidToken(
      field,
      `issuer ${JSON.stringify(unverified.iss)} is not accepted (accepted: Strongroom itself and OIDC_ISSUERS: ${accepted})`,
    );
  }

  let payload: JWTPayload;
  try {
    const options = { issuer: unverified.iss, algorithms, currentDate: now, clockTolerance: CLOCK_TOLERANCE_SECONDS };
    ({ payload } = typeof key === "function" ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options));
  } catch (error) {
    if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) {
      throw new ApiError(GrpcCode.UNAVAILABLE, `the keys of issuer ${unverified.iss} could not be fetched: ${(error as Error).message}`);
    }
    throw invalidToken(field, describeVerificationFailure(error, unverified));
  }
  const audiences = (Array.isArray(payload.aud) ? payload.aud : [payload.aud]).filter(
    (a): a is string => typeof a === "string" && a.length > 0,
  );
  if (typeof payload.sub !== "string" || payload.sub.length === 0) throw invalidToken(field, "the token has no sub claim");
  if (audiences.length === 0) throw invalidToken(field, "the token has no aud claim");
  if (typeof payload.exp !== "number") throw invalidToken(field, "the token has no exp claim");
  return {
    iss: unverified.iss,
    sub: payload.sub,
    audiences,
    replayKey: replayKeyOf(token, unverified.iss, payload.jti),
    expiresAt: new Date((payload.exp + CLOCK_TOLERANCE_SECONDS) * 1000),
    ...(typeof payload.nonce === "string" ? { nonce: payload.nonce } : {}),
    ...(typeof payload.tknonce === "string" ? { tknonce: payload.tknonce } : {}),
    ...(typeof payload.email === "string" && (payload.email_verified === true || payload.email_verified === "true")
      ? { verifiedEmail: payload.email }
      : {}),
  };
}

type CryptoKeyLike = ServerKey["publicKey"];

const CLOCK_TOLERANCE_SECONDS = 30;

function replayKeyOf(token: string, issuer: string, jti: unknown): string {
  const hash = (text: string) => bytesToHex(sha256(new TextEncoder().encode(text)));
  if (typeof jti === "string" && jti.length > 0) return hash(`jti\n${issuer}\n${jti}`);
  const claims = Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8");
  return hash(`claims\n${claims}`);
}

/** What an OIDC token is spent for: registering an OAuth provider, or authenticating (a login, an MFA step). */
export type OidcTokenUsage = "USAGE_TYPE_REGISTRATION" | "USAGE_TYPE_AUTHENTICATION";

/**
 * Spends a verified OIDC token for one proof in `organizationId`; false when it was spent already. A token
 * proves once, except that the token a provider was registered with may then authenticate once in that same
 * organization (signup, then the login that follows it). One atomic statement: of two concurrent uses, one wins.
 */
export async function spendOidcToken(
  db: Queryable,
  token: Pick<VerifiedOidcToken, "replayKey" | "expiresAt">,
  usage: OidcTokenUsage,
  organizationId: string,
  now: Date,
): Promise<boolean> {
  const [fresh] = await db.query(
    `INSERT INTO spent_oidc_tokens AS spent (token_key, usage, organization_id, spent_at, expires_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (token_key) DO UPDATE SET usage = EXCLUDED.usage, spent_at = EXCLUDED.spent_at
       WHERE spent.usage = 'USAGE_TYPE_REGISTRATION' AND EXCLUDED.usage = 'USAGE_TYPE_AUTHENTICATION'
         AND spent.organization_id = EXCLUDED.organization_id
     RETURNING token_key`,
    [token.replayKey, usage, organizationId, now, token.expiresAt],
  );
  return fresh !== undefined;
}

function describeVerificationFailure(error: InstanceType<typeof errors.JOSEError>, claims: JWTPayload): string {
  if (error instanceof errors.JWTExpired) {
    return `the token expired at ${typeof claims.exp === "number" ? new Date(claims.exp * 1000).toISOString() : "?"}`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return `the signature does not verify with the keys of issuer ${String(claims.iss)}`;
  if (error instanceof errors.JWKSNoMatchingKey) return `no key of issuer ${String(claims.iss)}'s JWKS matches the token's header`;
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's signing algorithm is not accepted";
  if (error instanceof errors.JWTClaimValidationFailed) return `claim ${error.claim} is invalid: ${error.reason}`;
  return `the token does not verify: ${error.message}`;
}

/**
 * Proves an OAuth provider: a verified token for its identity came with a signature by the key the token's nonce
 * binds (an attested stamp, or the first stamp of a session key such a token logged in). The auth proxy's lookups
 * find it from now on; the email the token vouches for, when it is the user's, is proven with it.
 */
export async function proveOauthProvider(db: Queryable, providerId: string, verifiedEmail: string | undefined, now: Date): Promise<void> {
  const [proven] = await db.query<{ user_id: string }>(
    "UPDATE oauth_providers SET proven_at = $2 WHERE id = $1 AND proven_at IS NULL RETURNING user_id",
    [providerId, now],
  );
  if (proven && verifiedEmail) {
    await db.query(
      "UPDATE users SET email_verified_at = $3, email_self_asserted = false WHERE id = $1 AND lower(email) = lower($2) AND email_verified_at IS NULL",
      [proven.user_id, verifiedEmail, now],
    );
  }
}
