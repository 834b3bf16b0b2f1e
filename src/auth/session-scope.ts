import { permissionDenied } from "../errors.js";
import type { ActivityDefinition, EnrolledFactor, SubmitOperation } from "../operations/activity-definition.js";
import type { OrganizationRow } from "../records/organization.js";
import { conditionKeywordSets } from "../policy/keywords/index.js";
import { compilePolicyExpression, evaluateExpression, type Expr } from "../policy/language/index.js";
import type { Queryable } from "../store/database.js";
import type { Principal } from "./principal.js";

/** Compiled scopes by source; bounded (profiles are immutable, so a source always compiles to the same tree). */
const compiled = new Map<string, Expr>();
const COMPILED_SCOPES = 1_000;

function compiledScope(scope: string): Expr {
  let expr = compiled.get(scope);
  if (!expr) {
    expr = compilePolicyExpression(scope, "condition");
    if (compiled.size >= COMPILED_SCOPES) compiled.clear();
    compiled.set(scope, expr);
  }
  return expr;
}

/**
 * A request signed with a login key issued under a session profile must satisfy the profile's scope: a condition
 * of the policy language, evaluated with the keywords a policy condition sees for this activity (activity.type,
 * .resource, .action, .params, the wallet or key it targets, secret...), within one evaluation's budget. False,
 * or an error (a keyword this activity has no value for), refuses the request with 403 naming the profile.
 * Keys without a profile pass untouched.
 */
export async function enforceSessionScope(
  db: Queryable,
  principal: Principal,
  organization: OrganizationRow,
  definition: SubmitOperation,
  params: Record<string, unknown>,
  now: Date,
): Promise<void> {
  const profile = principal.sessionProfile;
  if (!profile) return;
  let allowed: boolean;
  let why: string;
  try {
    // An activity on several secrets is in scope when the scope holds for each of them.
    const targets = await conditionKeywordSets(db, organization.id, definition as ActivityDefinition, params);
    const scope = compiledScope(profile.scope);
    allowed = targets.every((keywords) => evaluateExpression(scope, { keywords, now: now.getTime() }));
    why = "evaluated to false";
  } catch (error) {
    allowed = false;
    why = `could not be evaluated (${error instanceof Error ? error.message : String(error)})`;
  }
  if (!allowed) {
    throw permissionDenied(
      `${definition.type} is outside the scope of session profile ${JSON.stringify(profile.name)} (${profile.id}): its scope ${JSON.stringify(profile.scope)} ${why} for this request`,
    );
  }
  enforceScopeInheritance(profile, definition as ActivityDefinition, params, principal.user.id);
}

/** What a credential under a profile may not create, whatever its scope: what has no way to carry the profile. */
const CANNOT_CARRY_A_PROFILE: Partial<Record<EnrolledFactor, string>> = {
  passkey: "a passkey",
  "oauth-provider": "an OAuth provider",
  contact: "an email or phone number (a one-time code sent to it logs in)",
};

/**
 * A credential under a session profile creates only credentials bound by the same scope: the API keys and
 * sessions it asks for carry its profile (ActivityContext.requesterSessionProfileId), a login it asks for may
 * name no other profile, and what cannot carry a profile — a passkey, an OAuth provider, a contact that logs
 * in — it may not create at all. Otherwise a profile allowing `stamp_login` (as refreshing a session needs)
 * would mint an unscoped session, and the scope would bind nothing.
 */
function enforceScopeInheritance(
  profile: NonNullable<Principal["sessionProfile"]>,
  definition: ActivityDefinition,
  params: Record<string, unknown>,
  requesterUserId: string,
): void {
  const enrollment = definition.enrolls?.(params as never, requesterUserId);
  if (!enrollment) return;
  const under = `session profile ${JSON.stringify(profile.name)} (${profile.id})`;
  const uncarried = enrollment.factors.flatMap((factor) => CANNOT_CARRY_A_PROFILE[factor] ?? []);
  if (uncarried.length > 0) {
    throw permissionDenied(
      `${definition.type} would create ${uncarried.join(" and ")}, which cannot carry ${under}; a credential issued under a profile creates only credentials bound by its scope. Use a credential without a profile`,
      "CREDENTIAL_NOT_ALLOWED",
    );
  }
  const named = enrollment.sessionProfileId;
  if (named !== undefined && named !== "" && named !== profile.id) {
    throw permissionDenied(
      `sessionProfileId: the request is signed by a credential issued under ${under}, and the session it creates carries that profile; it cannot be issued under profile ${JSON.stringify(named)}`,
      "CREDENTIAL_NOT_ALLOWED",
    );
  }
}
