import { lookup } from "node:dns/promises";
import { isIP, BlockList } from "node:net";

/** Addresses a webhook may not reach (SSRF): loopback, private, link-local, CGNAT, multicast, unspecified, metadata. */
const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["::ffff:0:0", 96],
  ["64:ff9b::", 96],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

export class WebhookDestinationError extends Error {}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

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
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new WebhookDestinationError(`the URL must be http or https, not ${url.protocol}`);
    return url;
  }
  if (url.protocol !== "https:") throw new WebhookDestinationError("the URL must use https (set STRONGROOM_WEBHOOK_ALLOW_PRIVATE=1 for local development)");
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
    throw new WebhookDestinationError(`the host ${hostname} resolves to ${refused?.address ?? "nothing"}, a loopback, private, link-local, multicast or metadata address`);
  }
  return addresses[0]!;
}
