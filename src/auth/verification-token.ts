import { CompactSign, compactVerify } from "jose";
import { randomUUID } from "node:crypto";
import type { ServerKey } from "../crypto/server-keys.js";
import type { Queryable } from "../store/database.js";
import { invalidArgument } from "../errors.js";

/**
 * Verification tokens prove that someone controls an email address or phone number: the server
 * issues one after a successful OTP check. They are ES256 JWTs signed by the server's signer key
 * with the claims the SDKs read: id, verification_type, contact, organization_id, public_key and
 * exp — which, as in the hosted API, is epoch milliseconds written as a string.
 */
export interface VerificationClaims {
  id: string;
  verification_type: string;
  contact: string;
  organization_id?: string;
  public_key?: string;
  exp: string;
}

export async function issueVerificationToken(
  signer: ServerKey,
  claims: { verificationType: string; contact: string; organizationId?: string; publicKey?: string },
  ttlSeconds: number,
  now = new Date(),
): Promise<{ token: string; claims: VerificationClaims }> {
  const payload: VerificationClaims = {
    id: randomUUID(),
    verification_type: claims.verificationType,
    contact: claims.contact,
    ...(claims.organizationId ? { organization_id: claims.organizationId } : {}),
    ...(claims.publicKey ? { public_key: claims.publicKey } : {}),
    exp: String(now.getTime() + ttlSeconds * 1000),
  };
  const token = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "ES256", typ: "JWT" })
    .sign(signer.privateKey);
  return { token, claims: payload };
}

export async function verifyVerificationToken(
  signer: ServerKey,
  token: string,
  /** Without `contact`, any contact is accepted (the caller then looks the contact up, as otp_login does). */
  expected: { contact?: string; verificationType?: string; now: Date; field: string },
): Promise<VerificationClaims> {
  const refuse = (why: string) =>
    invalidArgument(`${expected.field}: invalid verification token: ${why}`, [{ field: expected.field, description: why }]);
  let claims: VerificationClaims;
  try {
    const { payload, protectedHeader } = await compactVerify(token, signer.publicKey, { algorithms: ["ES256"] });
    if (protectedHeader.alg !== "ES256") throw new Error("unexpected algorithm");
    claims = JSON.parse(new TextDecoder().decode(payload)) as VerificationClaims;
  } catch {
    throw refuse("it was not issued by this server (bad signature or malformed token)");
  }
  const expiresAt = Number(claims.exp);
  if (!Number.isFinite(expiresAt) || expiresAt <= expected.now.getTime()) throw refuse("it has expired");
  if (typeof claims.contact !== "string" || typeof claims.id !== "string") throw refuse("it lacks the id or contact claim");
  if (expected.contact !== undefined && claims.contact.toLowerCase() !== expected.contact.toLowerCase()) {
    throw refuse(`it was issued for another contact, not ${JSON.stringify(expected.contact)}`);
  }
  if (expected.verificationType && claims.verification_type !== expected.verificationType) {
    throw refuse(`it is of type ${String(claims.verification_type)}, not ${expected.verificationType}`);
  }
  return claims;
}

/**
 * Spends a verification token for one use (`usage`: a login, a signup, a contact change): its id is remembered
 * until it would have expired anyway. Answers false when it was spent for that use already; one atomic insert,
 * so two requests never both spend it. @turnkey/core signs up with a token and then logs in with the same one,
 * which is why each use is counted apart.
 */
export async function spendVerificationToken(
  db: Queryable,
  claims: Pick<VerificationClaims, "id" | "exp">,
  usage: string,
  organizationId: string,
  now: Date,
): Promise<boolean> {
  const [fresh] = await db.query(
    `INSERT INTO consumed_verification_tokens (token_id, usage, organization_id, consumed_at, expires_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (token_id, usage) DO NOTHING RETURNING token_id`,
    [claims.id, usage, organizationId, now, new Date(Number(claims.exp))],
  );
  return fresh !== undefined;
}
