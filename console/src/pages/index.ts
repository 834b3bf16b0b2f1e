import type { ComponentType } from "react";
import type { PagePath } from "../routes.js";
import { Activities } from "./Activities.js";
import { Approvals } from "./Approvals.js";
import { Audit } from "./Audit.js";
import { Credentials } from "./Credentials.js";
import { Settings } from "./Settings.js";
import { Users } from "./Users.js";
import { Policies } from "./Policies.js";
import { PrivateKeys } from "./PrivateKeys.js";
import { Wallets } from "./Wallets.js";
import { Webhooks } from "./Webhooks.js";

/** Each page of the console, by its route (routes.ts lists them in menu order). */
export const pageComponents: Record<PagePath, ComponentType<{ id?: string }>> = {
  approvals: Approvals,
  activities: Activities,
  audit: Audit,
  users: Users,
  credentials: Credentials,
  settings: Settings,
  policies: Policies,
  wallets: Wallets,
  "private-keys": PrivateKeys,
  webhooks: Webhooks,
};
