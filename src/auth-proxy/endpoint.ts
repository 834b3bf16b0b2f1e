import type { Static, TObject } from "@sinclair/typebox";
import type { OrganizationRow } from "../records/organization.js";
import type { ProxyActor } from "./act.js";
import type { AuthProxySettings } from "../domains/auth-proxy-config/configs.js";

/** What an auth proxy endpoint works with: the proxy acting for one config, and that config's settings. */
export interface ProxyContext extends ProxyActor {
  settings: AuthProxySettings;
  /** The client's address (the socket's, or X-Forwarded-For through TRUST_PROXY); IPv6 by its /64. */
  clientAddress: string;
  /** The organization the config belongs to (where signups create sub-organizations). */
  organization: OrganizationRow;
}

/** One POST endpoint of the auth proxy, declared in one place: its path, body schema and handler. */
export interface ProxyEndpoint<S extends TObject = TObject> {
  path: string;
  summary: string;
  body: S;
  handle(ctx: ProxyContext, body: Static<S>): Promise<Record<string, unknown>>;
}

export function defineEndpoint<S extends TObject>(endpoint: ProxyEndpoint<S>): ProxyEndpoint {
  return endpoint as unknown as ProxyEndpoint;
}
