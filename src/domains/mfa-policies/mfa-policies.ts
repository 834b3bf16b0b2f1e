import { findSessionProfile } from "../session-profiles/session-profiles.js";
import type { OrganizationRow } from "../../records/organization.js";
import { invalidArgument, notFound } from "../../errors.js";
import type { Queryable } from "../../store/database.js";
import { checkPolicyExpression } from "../policies/policies.js";
import { MAX_MFA_POLICIES_PER_USER, SATISFIABLE_TYPES } from "./methods.js";
import type { RequiredStep, MfaPolicyRow } from "../../records/mfa-policy.js";

export { MfaPolicyRecord, mfaPolicyRecord, type MfaPolicyRow } from "../../records/mfa-policy.js";

/** A user's MFA policies in the order they are evaluated: `order`, then creation. */
export async function mfaPoliciesOf(db: Queryable, organizationId: string, userId: string): Promise<MfaPolicyRow[]> {
  return db.query<MfaPolicyRow>(
    "SELECT * FROM mfa_policies WHERE organization_id = $1 AND user_id = $2 ORDER BY position, created_at, id",
    [organizationId, userId],
  );
}

export async function requireMfaPolicy(db: Queryable, organizationId: string, userId: string, mfaPolicyId: string): Promise<MfaPolicyRow> {
  const [row] = await db.query<MfaPolicyRow>("SELECT * FROM mfa_policies WHERE id = $1 AND organization_id = $2 AND user_id = $3", [
    mfaPolicyId,
    organizationId,
    userId,
  ]);
  if (!row)
    throw notFound(
      `mfaPolicyId: no MFA policy ${JSON.stringify(mfaPolicyId)} for user ${JSON.stringify(userId)} in organization ${organizationId}`,
      "MFA_POLICY_NOT_FOUND",
    );
  return row;
}

/** `condition` is policy language: parsed, type-checked and costed now, so that evaluating it later cannot fail on its syntax. */
export function checkMfaCondition(condition: string | undefined): void {
  if (condition === undefined) return;
  if (condition.trim() === "")
    throw invalidArgument("condition: an MFA policy's condition must not be empty (write `true` for every activity)", "INVALID_POLICY", [
      { field: "condition", description: "must not be empty" },
    ]);
  checkPolicyExpression(condition, "condition", "condition");
}

/**
 * The steps' methods: of a type some credential can prove here, and an `id` only where it names something the
 * user holds — an API key or passkey of theirs (a session's id would name a session profile, which this server
 * does not issue yet, so it could never be met).
 */
export async function checkRequiredMethods(
  db: Queryable,
  organization: Pick<OrganizationRow, "id" | "parent_id">,
  userId: string,
  steps: RequiredStep[] | undefined,
): Promise<void> {
  if (steps === undefined) return;
  const organizationId = organization.id;
  for (const [s, step] of steps.entries()) {
    for (const [m, method] of step.any.entries()) {
      const field = `requiredAuthenticationMethods[${s}].any[${m}]`;
      const refuse = (why: string) => invalidArgument(`${field}: ${why}`, "INVALID_MFA_POLICY", [{ field, description: why }]);
      if (!SATISFIABLE_TYPES.has(method.type)) throw refuse(`${method.type} is not an authentication method this server proves`);
      if (method.id === undefined) continue;
      if (method.type === "AUTHENTICATION_TYPE_SESSION") {
        if (!(await findSessionProfile(db, organization, method.id)))
          throw refuse(
            `a session method's id names a session profile: there is no profile ${JSON.stringify(method.id)} in organization ${organizationId} or its parent`,
          );
        continue;
      }
      if (method.type === "AUTHENTICATION_TYPE_EMAIL_OTP" || method.type === "AUTHENTICATION_TYPE_SMS_OTP")
        throw refuse("each one-time code is a new proof with no lasting id; leave id out to accept any code sent to the user's contact");
      if (method.type === "AUTHENTICATION_TYPE_OAUTH") {
        const [provider] = await db.query("SELECT 1 FROM oauth_providers WHERE id = $1 AND organization_id = $2 AND user_id = $3", [
          method.id,
          organizationId,
          userId,
        ]);
        if (!provider) throw refuse(`user ${userId} has no OAuth provider ${JSON.stringify(method.id)}`);
        continue;
      }
      const table = method.type === "AUTHENTICATION_TYPE_PASSKEY" ? "authenticators" : "api_keys";
      const [held] = await db.query("SELECT 1 FROM " + table + " WHERE id = $1 AND organization_id = $2 AND user_id = $3", [
        method.id,
        organizationId,
        userId,
      ]);
      if (!held)
        throw refuse(
          `user ${userId} has no ${method.type === "AUTHENTICATION_TYPE_PASSKEY" ? "authenticator" : "API key"} ${JSON.stringify(method.id)}`,
        );
    }
  }
}

/** In the activity's transaction: a user has at most MAX_MFA_POLICIES_PER_USER policies. */
export async function assertRoomForMfaPolicy(tx: Queryable, organizationId: string, userId: string): Promise<void> {
  const [{ count }] = (await tx.query<{ count: number | string }>(
    "SELECT count(*) AS count FROM mfa_policies WHERE organization_id = $1 AND user_id = $2",
    [organizationId, userId],
  )) as [{ count: number | string }];
  if (Number(count) >= MAX_MFA_POLICIES_PER_USER)
    throw invalidArgument(
      `userId: user ${userId} already has ${MAX_MFA_POLICIES_PER_USER} MFA policies, the most one user may have`,
      "INVALID_MFA_POLICY",
      [{ field: "userId", description: `at most ${MAX_MFA_POLICIES_PER_USER} MFA policies per user` }],
    );
}
