import { activitiesDomain } from "./activities/index.js";
import { authProxyDomain } from "./auth-proxy-config/index.js";
import { authenticationDomain } from "./authentication/index.js";
import { credentialsDomain } from "./credentials/index.js";
import { invitationsDomain } from "./invitations/index.js";
import { ipAllowlistsDomain } from "./ip-allowlists/index.js";
import { mfaPoliciesDomain } from "./mfa-policies/index.js";
import { oauthDomain } from "./oauth/index.js";
import { organizationsDomain } from "./organizations/index.js";
import { policiesDomain } from "./policies/index.js";
import { privateKeysDomain } from "./private-keys/index.js";
import { secretsDomain } from "./secrets/index.js";
import { sessionProfilesDomain } from "./session-profiles/index.js";
import { sessionsDomain } from "./sessions/index.js";
import { signingDomain } from "./signing/index.js";
import { smartContractInterfacesDomain } from "./smart-contract-interfaces/index.js";
import { transactionsDomain } from "./transactions/index.js";
import { usersDomain } from "./users/index.js";
import { velocityControlsDomain } from "./velocity-controls/index.js";
import { walletsDomain } from "./wallets/index.js";
import { webhooksDomain } from "./webhooks/index.js";

/** Every domain Strongroom serves; the activity and query registries are built from their operations. */
export const domains = [
  activitiesDomain,
  authProxyDomain,
  authenticationDomain,
  credentialsDomain,
  invitationsDomain,
  ipAllowlistsDomain,
  mfaPoliciesDomain,
  oauthDomain,
  organizationsDomain,
  policiesDomain,
  privateKeysDomain,
  secretsDomain,
  sessionProfilesDomain,
  sessionsDomain,
  signingDomain,
  smartContractInterfacesDomain,
  transactionsDomain,
  usersDomain,
  velocityControlsDomain,
  walletsDomain,
  webhooksDomain,
];
