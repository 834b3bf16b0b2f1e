import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * The webhook destination rule (SSRF): an IPv4 address is public when it is in none of the special ranges
 * (ipaddr.js's "unicast": not unspecified, loopback, private, link-local, CGNAT, multicast, broadcast,
 * reserved or documentation). An IPv6 address that carries an IPv4 address — IPv4-compatible `::/96`,
 * IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`,
 * Teredo `2001::/32` (server and client) — is judged by the IPv4 address(es) it carries. The local-use
 * NAT64 prefix `64:ff9b:1::/48` (RFC 8215, never globally routed, embedding position chosen by the
 * operator) is refused whatever it carries. Any other IPv6 address is public only in no special range
 * (site-local `fec0::/10`, unique-local, link-local, multicast, discard, documentation, benchmarking … refused).
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === "ipv4" ? isPublicIPv4(parsed as ipaddr.IPv4) : isPublicIPv6(parsed as ipaddr.IPv6);
}

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return address.range() === "unicast";
}

const v4 = (bytes: number[]) => new ipaddr.IPv4(bytes);
const xorAll = (bytes: number[]) => bytes.map((b) => b ^ 0xff);
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");

/** The IPv4 addresses an IPv6 address carries, or undefined when it carries none. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const bytes = address.toByteArray();
  const low32 = bytes.slice(12, 16);
  if (bytes.slice(0, 12).every((b) => b === 0)) return [v4(low32)]; // IPv4-compatible ::/96, with :: and ::1
  switch (address.range()) {
    case "ipv4Mapped":
    case "rfc6145":
      return [v4(low32)];
    case "rfc6052":
      return address.match(NAT64_WELL_KNOWN) ? [v4(low32)] : [];
    case "6to4":
      return [v4(bytes.slice(2, 6))];
    case "teredo":
      return [v4(bytes.slice(4, 8)), v4(xorAll(low32))];
    default:
      return undefined;
  }
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  const carried = embeddedIPv4(address);
  if (carried) return carried.length > 0 && carried.every(isPublicIPv4);
  return address.range() === "unicast";
}

export class WebhookDestinationError extends Error {}

/**
 * Checks a webhook URL as the hosted API does: https, a host, no user info, and a host that resolves
 * only to public addresses. `allowPrivate` (STRONGROOM_WEBHOOK_ALLOW_PRIVATE) lifts the scheme and
 * address rules for local development.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookDestinationError(`${JSON.stringify(raw)} is not a URL`);
  }
  if (url.username || url.password) throw new WebhookDestinationError("the URL must not contain credentials (user info)");
  if (!url.hostname) throw new WebhookDestinationError("the URL needs a host");
  if (allowPrivate) {
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new WebhookDestinationError(`the URL must be http or https, not ${url.protocol}`);
    return url;
  }
  if (url.protocol !== "https:")
    throw new WebhookDestinationError("the URL must use https (set STRONGROOM_WEBHOOK_ALLOW_PRIVATE=1 for local development)");
  await resolvePublic(url.hostname.replace(/^\[|\]$/g, ""));
  return url;
}

/** The host's addresses, all of which must be public; used again at dial time so DNS cannot be swapped. */
export async function resolvePublic(hostname: string): Promise<{ address: string; family: number }> {
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) }] : await lookup(hostname, { all: true });
  } catch {
    throw new WebhookDestinationError(`the host ${hostname} does not resolve`);
  }
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  if (refused || addresses.length === 0) {
    throw new WebhookDestinationError(
      `the host ${hostname} resolves to ${refused?.address ?? "nothing"}, a loopback, private, link-local, multicast or metadata address`,
    );
  }
  return addresses[0]!;
}
