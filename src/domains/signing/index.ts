import type { Domain } from "../../operations/domain.js";
import { signRawPayload } from "./submit/sign-raw-payload.js";
import { signRawPayloads } from "./submit/sign-raw-payloads.js";
import { signTransaction } from "./submit/sign-transaction.js";

export const signingDomain: Domain = {
  name: "signing",
  activities: [signRawPayload, signRawPayloads, signTransaction],
  queries: [],
};
