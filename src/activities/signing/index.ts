import type { ActivityDefinition } from "../definition.js";
import { signRawPayload } from "./sign-raw-payload.js";
import { signRawPayloads } from "./sign-raw-payloads.js";
import { signTransaction } from "./sign-transaction.js";

export const signingActivities: ActivityDefinition[] = [signRawPayload, signRawPayloads, signTransaction];
