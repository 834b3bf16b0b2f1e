import type { Services } from "../services.js";
import { submitVote } from "./cast-vote.js";
import type { SubmitDefinition } from "./registry.js";
import type { SignedRequest } from "./steps/parse.js";
import type { ActivityOutcome } from "./steps/respond.js";
import { submitActivity } from "./submit-activity.js";
import { isVoteDefinition } from "../operations/vote-definition.js";

/** `/public/v1/submit/<operation>`: the activity pipeline (submit-activity.ts), or the vote pipeline for approve/reject (cast-vote.ts). */
export function submit(services: Services, definition: SubmitDefinition, request: SignedRequest): Promise<ActivityOutcome> {
  return isVoteDefinition(definition) ? submitVote(services, definition, request) : submitActivity(services, definition, request);
}
