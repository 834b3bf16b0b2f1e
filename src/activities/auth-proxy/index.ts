import type { ActivityDefinition } from "../definition.js";
import { disableAuthProxy } from "./disable-auth-proxy.js";
import { enableAuthProxy } from "./enable-auth-proxy.js";
import { updateAuthProxyConfig } from "./update-auth-proxy-config.js";

export const authProxyActivities: ActivityDefinition[] = [enableAuthProxy, updateAuthProxyConfig, disableAuthProxy];
