import { Type, type Static } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { alreadyExists, invalidArgument, notFound, resourceExhausted } from "../../errors.js";
import { Name } from "../../schema/common.js";
import type { Queryable } from "../../store/database.js";
import { ApiKeyParams, AuthenticatorParams, OauthProviderParams } from "../credentials/params.js";
import { addApiKeys, addAuthenticators, checkNewCredentials } from "../credentials/credentials.js";
import { addOauthProviders } from "../credentials/oauth-providers.js";
import type { VerifiedTokens } from "../credentials/owner.js";
import { lockOrganizationForLimits } from "../../records/organization.js";
import { requireUserTag } from "../tags.js";
import { mustExist } from "../references.js";

export const USERS_PER_ORGANIZATION = 100;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9][0-9]{6,14}$/;

export const UserParams = Type.Object({
  userName: Name("Human-readable name for a user"),
  userEmail: Type.Optional(Type.String({ maxLength: 320 })),
  userPhoneNumber: Type.Optional(Type.String({ maxLength: 32 })),
  apiKeys: Type.Array(ApiKeyParams),
  authenticators: Type.Array(AuthenticatorParams),
  oauthProviders: Type.Array(OauthProviderParams),
  userTags: Type.Array(Type.String({ minLength: 1 })),
});

export type UserInput = Static<typeof UserParams>;
/** Root users of a sub-organization are described the same way, without tags. */
export type NewUser = Omit<UserInput, "userTags"> & { userTags?: string[] };

export function checkEmail(email: string, field: string): void {
  if (!EMAIL.test(email)) {
    throw invalidArgument(`${field}: ${JSON.stringify(email)} is not a valid email address`, "INVALID_EMAIL", [
      { field, description: "must be an email address" },
    ]);
  }
}

export function checkPhoneNumber(phone: string, field: string): void {
  if (!E164.test(phone)) {
    throw invalidArgument(`${field}: ${JSON.stringify(phone)} is not a phone number in E.164 format (e.g. +13214567890)`, [
      { field, description: "must be in E.164 format" },
    ]);
  }
}

const usersNamed = (tx: Queryable, organizationId: string, name: string) =>
  tx.query<{ id: string }>("SELECT id FROM users WHERE organization_id = $1 AND name = $2", [organizationId, name]);

function refuseTakenUserName([taken]: { id: string }[], organizationId: string, name: string, field: string): void {
  if (taken)
    throw alreadyExists(
      `${field}: a user named ${JSON.stringify(name)} already exists in organization ${organizationId} (user ${taken.id})`,
    );
}

export async function assertUserNameFree(tx: Queryable, organizationId: string, name: string, field: string): Promise<void> {
  refuseTakenUserName(await usersNamed(tx, organizationId, name), organizationId, name, field);
}

/**
 * A new user's input checks, for `validate`: contacts, credentials and (in an existing organization) the
 * tags it names. What depends on the organization's current users (a free name, the limits) is execute's.
 */
export async function checkNewUser(db: Queryable, organizationId: string | undefined, user: NewUser, field: string): Promise<void> {
  if (user.userEmail) checkEmail(user.userEmail, `${field}.userEmail`);
  if (user.userPhoneNumber) checkPhoneNumber(user.userPhoneNumber, `${field}.userPhoneNumber`);
  await checkNewCredentials(user, {
    apiKeys: `${field}.apiKeys`,
    authenticators: `${field}.authenticators`,
    oauthProviders: `${field}.oauthProviders`,
  });
  if (organizationId === undefined) return;
  for (const [index, tagId] of (user.userTags ?? []).entries())
    await mustExist(requireUserTag(db, organizationId, tagId, `${field}.userTags[${index}]`));
}

/** Creates one user (its input checked by checkNewUser) with its credentials and tags; the caller's transaction holds it all. */
export async function createUser(
  tx: Queryable,
  target: {
    organizationId: string;
    now: Date;
    isRoot: boolean;
    verifiedTokens?: VerifiedTokens;
    registrationProves?: boolean;
    sessionProfileId: string | undefined;
  },
  user: NewUser,
  field: string,
): Promise<string> {
  const { organizationId, now } = target;
  // The lock and the reads it guards leave together, each run after the one before (Queryable): one round trip.
  const [, [{ count } = { count: 0 }], named] = await Promise.all([
    lockOrganizationForLimits(tx, organizationId),
    tx.query<{ count: number }>("SELECT count(*)::int AS count FROM users WHERE organization_id = $1", [organizationId]),
    usersNamed(tx, organizationId, user.userName),
  ]);
  if (count >= USERS_PER_ORGANIZATION) {
    throw resourceExhausted(`organization ${organizationId} already has the maximum of ${USERS_PER_ORGANIZATION} users`, "REQUEST_INVALID");
  }
  refuseTakenUserName(named, organizationId, user.userName, `${field}.userName`);
  const userId = randomUUID();
  await tx.query(
    `INSERT INTO users (id, organization_id, name, email, phone_number, is_root, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [userId, organizationId, user.userName, user.userEmail || null, user.userPhoneNumber || null, target.isRoot, now],
  );
  const { verifiedTokens, registrationProves, sessionProfileId } = target;
  const owner = { organizationId, userId, now, verifiedTokens, registrationProves, sessionProfileId };
  await addApiKeys(tx, owner, user.apiKeys, `${field}.apiKeys`);
  await addAuthenticators(tx, owner, user.authenticators, `${field}.authenticators`);
  const { verifiedEmails } = await addOauthProviders(tx, owner, user.oauthProviders, `${field}.oauthProviders`);
  // An OIDC token that verified, whose issuer vouches for the user's email, proves that email as a code would.
  if (user.userEmail && verifiedEmails.some((email) => email.toLowerCase() === user.userEmail!.toLowerCase())) {
    await tx.query("UPDATE users SET email_verified_at = $2 WHERE id = $1", [userId, now]);
  }
  for (const [index, tagId] of (user.userTags ?? []).entries()) {
    const [tag] = await tx.query("SELECT id FROM user_tags WHERE id = $1 AND organization_id = $2", [tagId, organizationId]);
    if (!tag) throw notFound(`${field}.userTags[${index}]: no user tag ${JSON.stringify(tagId)} in organization ${organizationId}`);
    await tx.query("INSERT INTO user_tag_assignments (tag_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [tagId, userId]);
  }
  return userId;
}
