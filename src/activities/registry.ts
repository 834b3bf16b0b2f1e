import type { ActivityDefinition } from "./definition.js";
import { authenticationActivities } from "./authentication/index.js";
import { authProxyActivities } from "./auth-proxy/index.js";
import { credentialActivities } from "./credentials/index.js";
import { invitationActivities } from "./invitations/index.js";
import { ipAllowlistActivities } from "./ip-allowlists/index.js";
import { oauthActivities } from "./oauth/index.js";
import { organizationActivities } from "./organizations/index.js";
import { policyActivities } from "./policies/index.js";
import { privateKeyActivities } from "./private-keys/index.js";
import { sessionActivities } from "./sessions/index.js";
import { signingActivities } from "./signing/index.js";
import { smartContractInterfaceActivities } from "./smart-contract-interfaces/index.js";
import { userActivities } from "./users/index.js";
import { walletActivities } from "./wallets/index.js";
import { webhookActivities } from "./webhooks/index.js";

/** Every activity Strongroom serves; the router, the docs table and the compatibility tests read this. */
export const activityDefinitions: ActivityDefinition[] = [
  ...organizationActivities,
  ...userActivities,
  ...credentialActivities,
  ...invitationActivities,
  ...walletActivities,
  ...privateKeyActivities,
  ...signingActivities,
  ...policyActivities,
  ...smartContractInterfaceActivities,
  ...webhookActivities,
  ...sessionActivities,
  ...ipAllowlistActivities,
  ...authenticationActivities,
  ...oauthActivities,
  ...authProxyActivities,
].sort((a, b) => a.operation.localeCompare(b.operation));

export const activitiesByOperation = new Map(activityDefinitions.map((d) => [d.operation, d]));

export const activitiesByType = new Map(activityDefinitions.map((d) => [d.type, d]));
