import type { Domain } from "../../operations/domain.js";
import { createReadOnlySession } from "./submit/create-read-only-session.js";
import { createReadWriteSession } from "./submit/create-read-write-session.js";
import { stampLogin } from "./submit/stamp-login.js";

export const sessionsDomain: Domain = {
  name: "sessions",
  activities: [createReadWriteSession, createReadOnlySession, stampLogin],
  queries: [],
};
