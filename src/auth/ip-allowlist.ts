import { BlockList, isIP } from "node:net";
import { permissionDenied } from "../errors.js";
import type { OrganizationRow } from "../records/organization.js";
import type { AllowlistRow, AllowlistRule } from "../records/ip-allowlist.js";
import type { Principal } from "./principal.js";

function allows(rules: AllowlistRule[], ip: string): boolean {
  const list = new BlockList();
  for (const rule of rules) {
    const [network, prefix] = rule.cidr.split("/") as [string, string];
    list.addSubnet(network, Number(prefix), isIP(network) === 6 ? "ipv6" : "ipv4");
  }
  return list.check(ip, isIP(ip) === 6 ? "ipv6" : "ipv4");
}

/**
 * The documented precedence, for API keys of a top-level organization (sub-organizations, parent keys and
 * passkeys are never checked): nothing applies unless the organization-level allowlist is enabled; then the
 * key's own rules if it has any, else the organization's — an enabled list with no rules allows nothing. An
 * address that cannot be read falls to onEvaluationError (DENY by default). Requests signed by the
 * organization's own auth proxy are exempt, as documented. `lists` are the organization's list and the key's.
 */
export function enforceIpAllowlist(
  lists: AllowlistRow[],
  principal: Principal,
  organization: OrganizationRow,
  clientIp: string | undefined,
  isAuthProxyKey: boolean,
): void {
  if (principal.credential.kind !== "api-key" || principal.viaParent || organization.parent_id || isAuthProxyKey) return;
  const orgList = lists.find((l) => l.public_key === "");
  if (!orgList?.enabled) return;
  const keyList = lists.find((l) => l.public_key !== "" && l.rules.length > 0);
  const applied = keyList ?? orgList;
  const which = keyList ? `the IP allowlist of API key ${principal.credential.id}` : `the IP allowlist of organization ${organization.id}`;
  const ip = clientIp?.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, "$1");
  if (!ip || isIP(ip) === 0) {
    if (applied.on_evaluation_error === "ALLOW") return;
    throw permissionDenied(`the client address could not be determined, and ${which} denies on evaluation errors`, "IP_NOT_ALLOWED");
  }
  if (!allows(applied.rules, ip)) {
    throw permissionDenied(
      `requests from ${ip} are not allowed by ${which} (${applied.rules.length} rule${applied.rules.length === 1 ? "" : "s"})`,
      "IP_NOT_ALLOWED",
    );
  }
}
