import type { QueryDefinition } from "./definition.js";
import { activityQueries } from "./activities/index.js";
import { credentialQueries } from "./credentials/index.js";
import { ipAllowlistQueries } from "./ip-allowlists/index.js";
import { oauthQueries } from "./oauth/index.js";
import { organizationQueries } from "./organizations/index.js";
import { policyQueries } from "./policies/index.js";
import { smartContractInterfaceQueries } from "./smart-contract-interfaces/index.js";
import { privateKeyQueries } from "./private-keys/index.js";
import { userQueries } from "./users/index.js";
import { webhookQueries } from "./webhooks/index.js";
import { walletQueries } from "./wallets/index.js";

/** Every query Strongroom serves; the router, the docs table and the compatibility tests read this. */
export const queryDefinitions: QueryDefinition[] = [
  ...organizationQueries,
  ...userQueries,
  ...credentialQueries,
  ...activityQueries,
  ...walletQueries,
  ...privateKeyQueries,
  ...policyQueries,
  ...smartContractInterfaceQueries,
  ...webhookQueries,
  ...ipAllowlistQueries,
  ...oauthQueries,
].sort((a, b) =>
  a.operation.localeCompare(b.operation),
);

export const queriesByOperation = new Map(queryDefinitions.map((d) => [d.operation, d]));
