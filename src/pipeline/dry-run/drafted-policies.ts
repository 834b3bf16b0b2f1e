import { Type, type Static } from "@sinclair/typebox";
import { checkPolicy, PolicyParams, storedExpression } from "../../domains/policies/policies.js";
import type { DecisionPolicy } from "../../policy/decision.js";

/** A drafted policy: create_policy's parameters and limits, its notes optional (a draft need not explain itself yet). */
export const DraftedPolicy = Type.Object({ ...PolicyParams.properties, notes: Type.Optional(PolicyParams.properties.notes) });

/** A drafted policy set: at most as many policies as one create_policies stores. */
export const DraftedPolicies = Type.Array(DraftedPolicy, {
  maxItems: 100,
  description: "A drafted policy set that replaces the deciding organization's policies for this evaluation",
});

/** How a drafted policy is named in the answer: it has no id yet. */
export const draftPolicyId = (index: number) => `draft:${index}`;

/**
 * The drafts as the decision reads them, each expression checked by create_policy's own compiler and cost
 * estimate first: a bad one is a 400 naming `policies[<index>].<field>` and the position.
 */
export function compileDraftedPolicies(drafts: Static<typeof DraftedPolicies>): DecisionPolicy[] {
  return drafts.map((draft, index) => {
    checkPolicy({ ...draft, notes: draft.notes ?? "" }, `policies[${index}].`);
    return {
      id: draftPolicyId(index),
      effect: draft.effect,
      condition: storedExpression(draft.condition),
      consensus: storedExpression(draft.consensus),
      time: storedExpression(draft.time),
    };
  });
}
