import { spendVerificationToken, verifyVerificationToken, type VerificationClaims } from "../../auth/verification-token.js";
import { failedPrecondition, notFound } from "../../errors.js";
import { requireUser } from "./user-records.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityContext, ValidationContext } from "../activity-definition.js";
import { checkEmail, checkPhoneNumber } from "./users.js";
import { mustExist } from "../references.js";

/**
 * A user's two contacts: where each is stored, when it was last proven, whether the user set it on
 * themselves without proof (then no policy sees it and no login finds the user by it), and how two values compare.
 */
const CONTACTS = {
  email: {
    name: "email",
    column: "email",
    verifiedAt: "email_verified_at",
    selfAsserted: "email_self_asserted",
    field: "userEmail",
    check: checkEmail,
    is: (value: string) => `lower(email) = lower(${value})`,
  },
  phone: {
    name: "phone number",
    column: "phone_number",
    verifiedAt: "phone_number_verified_at",
    selfAsserted: "phone_number_self_asserted",
    field: "userPhoneNumber",
    check: checkPhoneNumber,
    is: (value: string) => `phone_number = ${value}`,
  },
};

const contactOf = (verificationType: string) => CONTACTS[verificationType === "OTP_TYPE_EMAIL" ? "email" : "phone"];

/**
 * The user of the organization who holds this email (OTP_TYPE_EMAIL) or phone number (SMS, WhatsApp), for a
 * login or a message by that contact. A contact the user set on themselves without proof never matches; of
 * several users, one whose contact a token proved comes first, then the oldest.
 */
export async function userByContact(
  tx: Queryable,
  organizationId: string,
  verificationType: string,
  contact: string,
): Promise<{ id: string }> {
  const { is, name, verifiedAt, selfAsserted } = contactOf(verificationType);
  const [user] = await tx.query<{ id: string }>(
    `SELECT id FROM users WHERE organization_id = $1 AND ${is("$2")} AND NOT ${selfAsserted} ORDER BY ${verifiedAt} IS NULL, created_at, id LIMIT 1`,
    [organizationId, contact],
  );
  if (!user) throw notFound(`no user with ${name} ${contact} in organization ${organizationId}`, "USER_NOT_FOUND");
  return user;
}

/**
 * Records that a verification token proved this contact (an email for OTP_TYPE_EMAIL, else a phone number):
 * of the one user it logged in (`userId`), or of every user of a new sub-organization that holds it.
 */
export async function markContactVerified(
  tx: Queryable,
  organizationId: string,
  verificationType: string,
  contact: string,
  now: Date,
  userId?: string,
): Promise<void> {
  const { verifiedAt, selfAsserted, is } = contactOf(verificationType);
  await tx.query(
    `UPDATE users SET ${verifiedAt} = $3, ${selfAsserted} = false WHERE organization_id = $1 AND ${is("$2")} AND ($4::text IS NULL OR id = $4)`,
    [organizationId, contact, now, userId ?? null],
  );
}

/**
 * update_user_email and update_user_phone_number's input checks (for `validate`): the user exists, the value's
 * format, the verification token proves it. The token is checked again when the activity runs: it may have expired.
 */
export async function checkUserContact(
  { db, organization, services, now }: Pick<ValidationContext, "db" | "organization" | "services" | "now">,
  kind: keyof typeof CONTACTS,
  request: { userId: string; value: string; verificationToken?: string },
): Promise<void> {
  await mustExist(requireUser(db, organization.id, request.userId));
  if (request.value !== "") CONTACTS[kind].check(request.value, CONTACTS[kind].field);
  if (request.verificationToken !== undefined)
    await verifyVerificationToken(services.signer, request.verificationToken, { contact: request.value, now, field: "verificationToken" });
}

/**
 * update_user_email and update_user_phone_number (input checked by checkUserContact): sets the contact, or removes it ("" as value). A token that
 * proves the new value verifies it; without one it stays verified only if it did not change. A new value the
 * user set on themselves without a token is self-asserted (see selfAssertedAfter).
 */
export async function updateUserContact(
  {
    tx,
    organization,
    now,
    services,
    requesterUserId,
    byRootQuorum,
  }: Pick<ActivityContext, "tx" | "organization" | "now" | "services" | "requesterUserId" | "byRootQuorum">,
  kind: keyof typeof CONTACTS,
  request: { userId: string; value: string; verificationToken?: string },
): Promise<void> {
  const { column, verifiedAt, selfAsserted, is } = CONTACTS[kind];
  const { userId, value, verificationToken } = request;
  await requireUser(tx, organization.id, userId);
  if (verificationToken !== undefined)
    await verifyVerificationToken(services.signer, verificationToken, { contact: value, now, field: "verificationToken" });
  const stored = value === "" ? null : value;
  const provenAt = verificationToken !== undefined && stored !== null ? now : null;
  // SET reads the row's old values: `is` compares the new value with the stored one.
  await tx.query(
    `UPDATE users SET ${column} = $2, ${verifiedAt} = CASE WHEN $4::timestamptz IS NOT NULL THEN $4 WHEN ${is("$2")} THEN ${verifiedAt} END,
            ${selfAsserted} = ${selfAssertedAfter(selfAsserted, "$2", is("$2"), "$4::timestamptz IS NOT NULL", "$5::boolean")}, updated_at = $3 WHERE id = $1`,
    [userId, stored, now, provenAt, assertedBySelf({ requesterUserId, byRootQuorum }, userId)],
  );
}

/** A verification token logs in once: its id is remembered until it would have expired anyway. */
export async function consumeVerificationToken(
  ctx: Pick<ActivityContext, "tx" | "organization" | "now">,
  claims: VerificationClaims,
  usage: string,
): Promise<void> {
  if (!(await spendVerificationToken(ctx.tx, claims, usage, ctx.organization.id, ctx.now)))
    throw failedPrecondition(
      `verificationToken: token ${claims.id} was already used; verify a new code to log in again`,
      "VERIFICATION_TOKEN_USED",
    );
}

/**
 * Whether a profile change is the user's word about themselves: they submitted it for their own user and it
 * ran on a policy's or the self-service permission. A change the root quorum approved is the organization's.
 */
export function assertedBySelf(ctx: Pick<ActivityContext, "requesterUserId" | "byRootQuorum">, userId: string): boolean {
  return ctx.requesterUserId === userId && !ctx.byRootQuorum;
}

/**
 * SQL for a profile value's self-asserted flag after an update (SET reads the row's old values): a value
 * removed, proven by a token or set by another user is trusted; one the user set on themselves without proof
 * is self-asserted; the user re-setting an unchanged value keeps its flag.
 */
export function selfAssertedAfter(flag: string, newValue: string, unchanged: string, proven: string, bySelf: string): string {
  return `CASE WHEN ${newValue}::text IS NULL OR ${proven} OR NOT ${bySelf} THEN false WHEN ${unchanged} THEN ${flag} ELSE true END`;
}
