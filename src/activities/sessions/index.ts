import type { ActivityDefinition } from "../definition.js";
import { createReadOnlySession } from "./create-read-only-session.js";
import { createReadWriteSession } from "./create-read-write-session.js";
import { stampLogin } from "./stamp-login.js";

export const sessionActivities: ActivityDefinition[] = [createReadWriteSession, createReadOnlySession, stampLogin];
