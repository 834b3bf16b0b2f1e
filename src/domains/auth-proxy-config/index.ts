import type { Domain } from "../../operations/domain.js";
import { disableAuthProxy } from "./submit/disable-auth-proxy.js";
import { enableAuthProxy } from "./submit/enable-auth-proxy.js";
import { updateAuthProxyConfig } from "./submit/update-auth-proxy-config.js";

export const authProxyDomain: Domain = {
  name: "auth-proxy",
  activities: [enableAuthProxy, updateAuthProxyConfig, disableAuthProxy],
  queries: [],
};
