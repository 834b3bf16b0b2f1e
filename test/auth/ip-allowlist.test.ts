import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/principal.js";
import { enforceIpAllowlist } from "../../src/auth/ip-allowlist.js";
import type { AllowlistRow } from "../../src/records/ip-allowlist.js";
import type { OrganizationRow } from "../../src/records/organization.js";

describe("IP allowlist evaluation errors", () => {
  const organization = { id: "org", parent_id: null } as unknown as OrganizationRow;
  const principal = { credential: { kind: "api-key", id: "k", type: "", publicKey: "02ab" }, viaParent: false } as unknown as Principal;
  const enabled = (onEvaluationError: string): AllowlistRow[] => [
    { public_key: "", enabled: true, on_evaluation_error: onEvaluationError, rules: [{ cidr: "127.0.0.1/32", createdAt: "0" }] },
  ];
  const check =
    (lists: AllowlistRow[], clientIp: string | undefined, isAuthProxyKey = false) =>
    () =>
      enforceIpAllowlist(lists, principal, organization, clientIp, isAuthProxyKey);

  it("deny by default when the client address is unknown, and allow when onEvaluationError says so", () => {
    expect(check(enabled("DENY"), undefined)).toThrow(/could not be determined/);
    expect(check(enabled("DENY"), "not an address")).toThrow(/could not be determined/);
    expect(check(enabled("DENY"), "::ffff:127.0.0.1")).not.toThrow();
    expect(check(enabled("ALLOW"), undefined)).not.toThrow();
  });

  it("exempts the organization's auth proxy key", () => {
    expect(check(enabled("DENY"), "203.0.113.9")).toThrow(/not allowed/);
    expect(check(enabled("DENY"), "203.0.113.9", true)).not.toThrow();
  });
});
