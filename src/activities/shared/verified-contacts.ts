import type { VerificationClaims } from "../../auth/verification-token.js";
import { failedPrecondition, notFound } from "../../errors.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityContext } from "../definition.js";

/** The user of the organization whose email (OTP_TYPE_EMAIL) or phone number (SMS, WhatsApp) was verified; the oldest if several. */
export async function userByContact(tx: Queryable, organizationId: string, verificationType: string, contact: string): Promise<{ id: string }> {
  const byEmail = verificationType === "OTP_TYPE_EMAIL";
  const [user] = await tx.query<{ id: string }>(
    `SELECT id FROM users WHERE organization_id = $1 AND ${byEmail ? "lower(email) = lower($2)" : "phone_number = $2"} ORDER BY created_at, id LIMIT 1`,
    [organizationId, contact],
  );
  if (!user) throw notFound(`no user with ${byEmail ? "email" : "phone number"} ${contact} in organization ${organizationId}`, "USER_NOT_FOUND");
  return user;
}

/** Records that a verification token proved this contact (an email for OTP_TYPE_EMAIL, else a phone number) of the organization's users. */
export async function markContactVerified(tx: Queryable, organizationId: string, verificationType: string, contact: string, now: Date): Promise<void> {
  await tx.query(
    verificationType === "OTP_TYPE_EMAIL"
      ? "UPDATE users SET email_verified_at = $3 WHERE organization_id = $1 AND lower(email) = lower($2)"
      : "UPDATE users SET phone_number_verified_at = $3 WHERE organization_id = $1 AND phone_number = $2",
    [organizationId, contact, now],
  );
}

/** A verification token logs in once: its id is remembered until it would have expired anyway. */
export async function consumeVerificationToken(ctx: Pick<ActivityContext, "tx" | "organization" | "now">, claims: VerificationClaims, usage: string): Promise<void> {
  const [fresh] = await ctx.tx.query(
    `INSERT INTO consumed_verification_tokens (token_id, usage, organization_id, consumed_at, expires_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (token_id) DO NOTHING RETURNING token_id`,
    [claims.id, usage, ctx.organization.id, ctx.now, new Date(Number(claims.exp))],
  );
  if (!fresh) throw failedPrecondition(`verificationToken: token ${claims.id} was already used; verify a new code to log in again`, "VERIFICATION_TOKEN_USED");
}
