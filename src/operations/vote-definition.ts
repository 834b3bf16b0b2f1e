import { Type } from "@sinclair/typebox";
import type { VoteSelection } from "../records/vote.js";
import type { SubmitOperation } from "./activity-definition.js";

/**
 * approve_activity / reject_activity: served at `/public/v1/submit/<operation>` like an activity, but a vote
 * on the activity named by `fingerprint` (see castVote), not an activity of its own: no handler, no policy
 * decision of its own, no record.
 */
/** A vote answers with the activity voted on, which carries that activity's own result: its `result` is empty. */
export interface VoteDefinition extends SubmitOperation<typeof VoteParameters> {
  selection: VoteSelection;
}

export const VoteParameters = Type.Object({
  fingerprint: Type.String({ minLength: 1, description: "The fingerprint of the activity to vote on" }),
});

export function defineVote(definition: Omit<VoteDefinition, "parameters" | "result">): VoteDefinition {
  return { ...definition, parameters: VoteParameters, result: Type.Object({}) };
}

export function isVoteDefinition(definition: object): definition is VoteDefinition {
  return "selection" in definition;
}
