import { isIP } from "node:net";
import { Type } from "@sinclair/typebox";
import { failedPrecondition, invalidArgument, notFound } from "../../errors.js";
import type { AllowlistRule } from "../../records/ip-allowlist.js";
import type { OrganizationRow } from "../../records/organization.js";
import type { Queryable } from "../../store/database.js";

/** An organization's allowlist (or a key's, with publicKey) as get_ip_allowlist answers it. */
export const IpAllowlistRecord = Type.Object({
  organizationId: Type.String(),
  rules: Type.Array(Type.Object({ cidr: Type.String(), label: Type.Optional(Type.String()), createdAt: Type.String() })),
  publicKey: Type.Optional(Type.String()),
  enabled: Type.Optional(Type.Boolean()),
  onEvaluationError: Type.Optional(Type.String()),
});

/** Documented: 10 IPv4 and 10 IPv6 rules per list; blocks no broader than /20 (IPv4) and /48 (IPv6). */
const LIMIT_PER_FAMILY = 10;
const BROADEST = { 4: 20, 6: 48 } as const;

/** Parses, bounds and normalizes a CIDR to its network address (192.168.1.100/24 → 192.168.1.0/24). */
export function normalizeCidr(cidr: string, field: string): { cidr: string; family: 4 | 6 } {
  const refuse = (why: string): never => {
    throw invalidArgument(`${field}: ${JSON.stringify(cidr)} ${why}`, [{ field, description: why }]);
  };
  const [address, prefixText, extra] = cidr.trim().split("/");
  const family = isIP(address ?? "") as 0 | 4 | 6;
  if (!address || family === 0 || prefixText === undefined || extra !== undefined || !/^\d{1,3}$/.test(prefixText))
    return refuse("is not a CIDR block like 192.168.1.0/24 or 2001:db8::/48");
  const prefix = Number(prefixText);
  const bits = family === 4 ? 32 : 128;
  if (prefix > bits) return refuse(`has a prefix longer than /${bits}`);
  if (prefix < BROADEST[family]) return refuse(`is broader than the largest allowed block, /${BROADEST[family]}`);
  // Mask to the network address.
  const bytes = family === 4 ? address.split(".").map(Number) : expandIpv6(address);
  const masked = bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    return byte & (0xff << (8 - keep)) & 0xff;
  });
  const network = family === 4 ? masked.join(".") : compressIpv6(masked);
  return { cidr: `${network}/${prefix}`, family };
}

function expandIpv6(address: string): number[] {
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
  return groups.flatMap((g) => {
    const n = parseInt(g || "0", 16);
    return [n >> 8, n & 0xff];
  });
}

function compressIpv6(bytes: number[]): string {
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best.length && j - i > 1) best = { start: i, length: j - i };
    i = j;
  }
  if (best.start < 0) return groups.join(":");
  return `${groups.slice(0, best.start).join(":")}::${groups.slice(best.start + best.length).join(":")}`;
}

/** Validated, normalized, de-duplicated rules (first occurrence and its label kept). */
export function allowlistRules(rules: { cidr: string; label?: string }[], now: Date): AllowlistRule[] {
  const out: AllowlistRule[] = [];
  const counts = { 4: 0, 6: 0 };
  for (const [index, rule] of rules.entries()) {
    const { cidr, family } = normalizeCidr(rule.cidr, `rules[${index}].cidr`);
    if (out.some((r) => r.cidr === cidr)) continue;
    if (++counts[family] > LIMIT_PER_FAMILY) {
      throw invalidArgument(`rules[${index}]: more than ${LIMIT_PER_FAMILY} IPv${family} rules`, [
        { field: `rules[${index}]`, description: `at most ${LIMIT_PER_FAMILY} IPv${family} rules` },
      ]);
    }
    out.push({ cidr, ...(rule.label ? { label: rule.label } : {}), createdAt: String(now.getTime()) });
  }
  return out;
}

/** Allowlists belong to top-level organizations; a key-level one names an API key of it. */
export async function allowlistTarget(tx: Queryable, organization: OrganizationRow, publicKey: string | undefined): Promise<string> {
  if (organization.parent_id) {
    throw failedPrecondition(
      `organization ${organization.id} is a sub-organization; IP allowlists apply to the parent organization ${organization.parent_id} only`,
      "REQUEST_INVALID",
    );
  }
  if (!publicKey) return "";
  await requireAllowlistKey(tx, organization.id, publicKey);
  return publicKey.toLowerCase();
}

/** A key-level allowlist's API key, named by its public key. */
export async function requireAllowlistKey(db: Queryable, organizationId: string, publicKey: string): Promise<void> {
  const [key] = await db.query("SELECT id FROM api_keys WHERE organization_id = $1 AND public_key = lower($2)", [
    organizationId,
    publicKey,
  ]);
  if (!key) throw notFound(`publicKey: no API key ${JSON.stringify(publicKey)} in organization ${organizationId}`, "API_KEY_NOT_FOUND");
}
