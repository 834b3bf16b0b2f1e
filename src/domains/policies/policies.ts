import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { alreadyExists, invalidArgument, notFound } from "../../errors.js";
import { compilePolicyExpression, costRefusal, isPolicySyntaxError, type PolicyField } from "../../policy/language/index.js";
import { Name, StringEnum } from "../../schema/common.js";
import type { Queryable } from "../../store/database.js";

export const Effect = StringEnum(["EFFECT_ALLOW", "EFFECT_DENY"]);

export const PolicyParams = Type.Object({
  policyName: Name("Human-readable name for a Policy"),
  effect: Effect,
  condition: Type.Optional(Type.String({ maxLength: 16384, description: "When the policy applies (policy language)" })),
  consensus: Type.Optional(Type.String({ maxLength: 16384, description: "Who must approve (policy language)" })),
  notes: Type.String({ maxLength: 4096 }),
  time: Type.Optional(Type.String({ maxLength: 4096, description: "When the policy is active (policy language)" })),
});

const invalidPolicy = (path: string, field: PolicyField, why: string) =>
  invalidArgument(`${path}: invalid policy ${field}: ${why}`, "INVALID_POLICY", [{ field: path, description: why }]);

/**
 * Parses, type-checks and estimates the cost of a policy field; a bad expression is a 400 pointing at the
 * position, and one whose estimated cost exceeds an evaluation's budget a 400 saying so.
 */
export function checkPolicyExpression(source: string | undefined, field: PolicyField, path: string): void {
  if (source === undefined || storedExpression(source) === null) return;
  let refusal: string | undefined;
  try {
    refusal = costRefusal(compilePolicyExpression(source, field));
  } catch (error) {
    if (isPolicySyntaxError(error)) throw invalidPolicy(path, field, error.message);
    throw error;
  }
  if (refusal) throw invalidPolicy(path, field, refusal);
}

/** An expression as stored: none (NULL) when left out or blank. */
export function storedExpression(source: string | undefined): string | null {
  return source === undefined || source.trim() === "" ? null : source;
}

/** A new policy's input checks (for `validate`): its three expressions. */
export function checkPolicy(policy: NewPolicy, path: string): void {
  checkPolicyExpression(policy.condition, "condition", `${path}condition`);
  checkPolicyExpression(policy.consensus, "consensus", `${path}consensus`);
  checkPolicyExpression(policy.time, "time", `${path}time`);
}

export async function assertPolicyNameFree(
  tx: Queryable,
  organizationId: string,
  name: string,
  field: string,
  exceptId?: string,
): Promise<void> {
  const [taken] = await tx.query<{ id: string }>("SELECT id FROM policies WHERE organization_id = $1 AND name = $2 AND id <> $3", [
    organizationId,
    name,
    exceptId ?? "",
  ]);
  if (taken)
    throw alreadyExists(
      `${field}: policy label must be unique: a policy named ${JSON.stringify(name)} already exists in organization ${organizationId} (policy ${taken.id})`,
    );
}

export interface NewPolicy {
  policyName: string;
  effect: string;
  condition?: string;
  consensus?: string;
  notes: string;
  time?: string;
}

/** Stores a policy whose expressions checkPolicy accepted. */
export async function insertPolicy(tx: Queryable, organizationId: string, policy: NewPolicy, path: string, now: Date): Promise<string> {
  const [condition, consensus, time] = [policy.condition, policy.consensus, policy.time].map(storedExpression);
  await assertPolicyNameFree(tx, organizationId, policy.policyName, `${path}policyName`);
  const policyId = randomUUID();
  await tx.query(
    `INSERT INTO policies (id, organization_id, name, effect, condition, consensus, time, notes, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
    [policyId, organizationId, policy.policyName, policy.effect, condition, consensus, time, policy.notes, now],
  );
  return policyId;
}

export async function requirePolicy(tx: Queryable, organizationId: string, policyId: string, field = "policyId"): Promise<void> {
  const [row] = await tx.query("SELECT id FROM policies WHERE id = $1 AND organization_id = $2", [policyId, organizationId]);
  if (!row) throw notFound(`${field}: no policy ${JSON.stringify(policyId)} in organization ${organizationId}`, "POLICY_NOT_FOUND");
}
