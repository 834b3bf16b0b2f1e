import type { Domain } from "../../operations/domain.js";
import { getSessionProfile } from "./query/get-session-profile.js";
import { getSessionProfiles } from "./query/get-session-profiles.js";
import { createSessionProfile } from "./submit/create-session-profile.js";

export const sessionProfilesDomain: Domain = {
  name: "session-profiles",
  activities: [createSessionProfile],
  queries: [getSessionProfile, getSessionProfiles],
};
