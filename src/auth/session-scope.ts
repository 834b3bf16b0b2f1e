import { permissionDenied } from "../errors.js";
import type { ActivityDefinition, SubmitOperation } from "../domains/activity-definition.js";
import type { OrganizationRow } from "../domains/organizations/organizations.js";
import { conditionKeywordSets } from "../policy/keywords/index.js";
import { compilePolicyExpression, evaluateExpression, type Expr } from "../policy/language/index.js";
import type { Queryable } from "../store/database.js";
import type { Principal } from "./authenticate.js";

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
}
