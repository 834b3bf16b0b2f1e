import { verifyVerificationToken, type VerificationClaims } from "../../auth/verification-token.js";
import { failedPrecondition, notFound } from "../../errors.js";
import { requireUser } from "../../records/users.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityContext } from "../definition.js";
import { checkEmail, checkPhoneNumber } from "./users.js";

/** A user's two contacts: where each is stored, when it was last proven, and how two values compare. */
const CONTACTS = {
  email: { name: "email", column: "email", verifiedAt: "email_verified_at", field: "userEmail", check: checkEmail, is: (value: string) => `lower(email) = lower(${value})` },
  phone: { name: "phone number", column: "phone_number", verifiedAt: "phone_number_verified_at", field: "userPhoneNumber", check: checkPhoneNumber, is: (value: string) => `phone_number = ${value}` },
};

const contactOf = (verificationType: string) => CONTACTS[verificationType === "OTP_TYPE_EMAIL" ? "email" : "phone"];

/** The user of the organization whose email (OTP_TYPE_EMAIL) or phone number (SMS, WhatsApp) was verified; the oldest if several. */
export async function userByContact(tx: Queryable, organizationId: string, verificationType: string, contact: string): Promise<{ id: string }> {
  const { is, name } = contactOf(verificationType);
  const [user] = await tx.query<{ id: string }>(`SELECT id FROM users WHERE organization_id = $1 AND ${is("$2")} ORDER BY created_at, id LIMIT 1`, [organizationId, contact]);
  if (!user) throw notFound(`no user with ${name} ${contact} in organization ${organizationId}`, "USER_NOT_FOUND");
  return user;
}

/** Records that a verification token proved this contact (an email for OTP_TYPE_EMAIL, else a phone number) of the organization's users. */
export async function markContactVerified(tx: Queryable, organizationId: string, verificationType: string, contact: string, now: Date): Promise<void> {
  const { verifiedAt, is } = contactOf(verificationType);
  await tx.query(`UPDATE users SET ${verifiedAt} = $3 WHERE organization_id = $1 AND ${is("$2")}`, [organizationId, contact, now]);
}

/**
 * update_user_email and update_user_phone_number: sets the contact, or removes it ("" as value). A token that
 * proves the new value verifies it; without one it stays verified only if it did not change.
 */
export async function updateUserContact(
  { tx, organization, now, services }: Pick<ActivityContext, "tx" | "organization" | "now" | "services">,
  kind: keyof typeof CONTACTS,
  request: { userId: string; value: string; verificationToken?: string },
): Promise<void> {
  const { column, verifiedAt, field, check, is } = CONTACTS[kind];
  const { userId, value, verificationToken } = request;
  await requireUser(tx, organization.id, userId);
  if (value !== "") check(value, field);
  if (verificationToken !== undefined) await verifyVerificationToken(services.signer, verificationToken, { contact: value, now, field: "verificationToken" });
  const stored = value === "" ? null : value;
  const provenAt = verificationToken !== undefined && stored !== null ? now : null;
  // SET reads the row's old values: `is` compares the new value with the stored one.
  await tx.query(
    `UPDATE users SET ${column} = $2, ${verifiedAt} = CASE WHEN $4::timestamptz IS NOT NULL THEN $4 WHEN ${is("$2")} THEN ${verifiedAt} END, updated_at = $3 WHERE id = $1`,
    [userId, stored, now, provenAt],
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
