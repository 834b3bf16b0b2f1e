import { spendVerificationToken, verifyVerificationToken, type VerificationClaims } from "../../auth/verification-token.js";
import { failedPrecondition, invalidField, notFound } from "../../errors.js";
import { sameP256PublicKey } from "../../crypto/public-keys.js";
import { requireUser } from "../../records/user.js";
import type { Queryable } from "../../store/database.js";
import { assertedBySelf, type ActivityContext, type ValidationContext } from "../../operations/activity-definition.js";
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

/** What a contact change proven by a verification token spends it for: once, as a login or a signup spends it once. */
const CONTACT_CHANGE = "USAGE_TYPE_UPDATE_CONTACT";

/**
 * A verification token as proof of a contact change: this server's, unexpired, for this very value and its
 * channel, issued for the organization of the activity or for its parent (the parent's auth proxy verifies
 * codes for its sub-organizations), and naming the client key it was issued to. Answers its claims.
 */
async function contactProof(
  { services, organization, now }: Pick<ValidationContext, "services" | "organization" | "now">,
  kind: keyof typeof CONTACTS,
  value: string,
  token: string,
): Promise<VerificationClaims> {
  const claims = await verifyVerificationToken(services.signer, token, { contact: value, now, field: "verificationToken" });
  if ((kind === "email") !== (claims.verification_type === "OTP_TYPE_EMAIL"))
    throw invalidField("verificationToken", `it proves a code sent by ${String(claims.verification_type)}, not a ${CONTACTS[kind].name}`);
  const issuer = claims.organization_id;
  if (!issuer || (issuer !== organization.id && issuer !== organization.parent_id))
    throw invalidField(
      "verificationToken",
      `it was issued for organization ${String(issuer)}, which is neither ${organization.id} nor its parent`,
    );
  if (!claims.public_key)
    throw invalidField("verificationToken", "it names no public_key, so nothing binds it to the client that verified the code");
  return claims;
}

/**
 * update_user_email and update_user_phone_number's input checks (for `validate`): the user exists, the value's
 * format, and a verification token proves it — for the organization (contactProof), not spent yet, and for the
 * key that verified the code: the request is stamped by the token's public_key (an API key or session key,
 * compared as points). The request shape has no room for a client signature, so one case is let through
 * without it: a token the parent organization issued (its auth proxy, as @turnkey/core's verifyOtp uses it with
 * a fresh key pair) for a user who changes their own contact, stamped by their session. Every token is
 * redacted from the records other members read, so only the client that verified the code holds it.
 */
export async function checkUserContact(
  ctx: Pick<ValidationContext, "db" | "organization" | "services" | "now" | "requesterUserId" | "requesterApiPublicKey">,
  kind: keyof typeof CONTACTS,
  request: { userId: string; value: string; verificationToken?: string },
): Promise<void> {
  const { db, organization, requesterUserId, requesterApiPublicKey } = ctx;
  await mustExist(requireUser(db, organization.id, request.userId));
  if (request.value !== "") CONTACTS[kind].check(request.value, CONTACTS[kind].field);
  if (request.verificationToken === undefined) return;
  const claims = await contactProof(ctx, kind, request.value, request.verificationToken);
  const stampedByTokenKey = requesterApiPublicKey !== undefined && sameP256PublicKey(requesterApiPublicKey, claims.public_key!);
  const ownChangeWithParentToken = claims.organization_id === organization.parent_id && request.userId === requesterUserId;
  if (!stampedByTokenKey && !ownChangeWithParentToken) {
    throw invalidField(
      "verificationToken",
      `it is bound to public key ${claims.public_key}, which did not stamp this request (${requesterApiPublicKey ?? "a passkey"} did); stamp the update with the key named when the code was verified`,
    );
  }
  const [spent] = await db.query("SELECT 1 FROM consumed_verification_tokens WHERE token_id = $1 AND usage = $2", [
    claims.id,
    CONTACT_CHANGE,
  ]);
  if (spent) throw invalidField("verificationToken", `token ${claims.id} was already used for a contact change; verify a new code`);
}

/**
 * update_user_email and update_user_phone_number (input checked by checkUserContact): sets the contact, or removes it ("" as value). A token that
 * proves the new value verifies it and is spent; without one it stays verified only if it did not change. A new value the
 * user set on themselves without a token is self-asserted (see selfAssertedAfter).
 */
export async function updateUserContact(
  ctx: Pick<ActivityContext, "tx" | "organization" | "now" | "services" | "requesterUserId" | "byRootQuorum">,
  kind: keyof typeof CONTACTS,
  request: { userId: string; value: string; verificationToken?: string },
): Promise<void> {
  const { tx, organization, now, requesterUserId, byRootQuorum } = ctx;
  const { column, verifiedAt, selfAsserted, is } = CONTACTS[kind];
  const { userId, value, verificationToken } = request;
  await requireUser(tx, organization.id, userId);
  if (verificationToken !== undefined) {
    // Checked at submission; again here, since it may have expired while the activity waited.
    const claims = await contactProof(ctx, kind, value, verificationToken);
    await consumeVerificationToken(ctx, claims, CONTACT_CHANGE);
  }
  const stored = value === "" ? null : value;
  const provenAt = verificationToken !== undefined && stored !== null ? now : null;
  // SET reads the row's old values: `is` compares the new value with the stored one.
  await tx.query(
    `UPDATE users SET ${column} = $2, ${verifiedAt} = CASE WHEN $4::timestamptz IS NOT NULL THEN $4 WHEN ${is("$2")} THEN ${verifiedAt} END,
            ${selfAsserted} = ${selfAssertedAfter(selfAsserted, "$2", is("$2"), "$4::timestamptz IS NOT NULL", "$5::boolean")}, updated_at = $3 WHERE id = $1`,
    [userId, stored, now, provenAt, assertedBySelf({ requesterUserId, byRootQuorum }, userId)],
  );
}

/** A verification token proves once per use (a login, a signup, a contact change): its id is remembered until it would have expired anyway. */
export async function consumeVerificationToken(
  ctx: Pick<ActivityContext, "tx" | "organization" | "now">,
  claims: VerificationClaims,
  usage: string,
): Promise<void> {
  if (!(await spendVerificationToken(ctx.tx, claims, usage, ctx.organization.id, ctx.now)))
    throw failedPrecondition(`verificationToken: token ${claims.id} was already used; verify a new code`, "VERIFICATION_TOKEN_USED");
}

/**
 * SQL for a profile value's self-asserted flag after an update (SET reads the row's old values): a value
 * removed, proven by a token or set by another user is trusted; one the user set on themselves without proof
 * is self-asserted; the user re-setting an unchanged value keeps its flag.
 */
export function selfAssertedAfter(flag: string, newValue: string, unchanged: string, proven: string, bySelf: string): string {
  return `CASE WHEN ${newValue}::text IS NULL OR ${proven} OR NOT ${bySelf} THEN false WHEN ${unchanged} THEN ${flag} ELSE true END`;
}
