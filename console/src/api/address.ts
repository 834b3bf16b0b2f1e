/**
 * Browsers refuse an IP address as a WebAuthn relying party ("This is an invalid domain"): on one, the console's
 * passkeys cannot work. Answers what to tell the user, with the address to open instead when there is one.
 */
export function passkeyAddressProblem(location: Location): { message: string; betterUrl?: string } | undefined {
  const host = location.hostname;
  const ipv4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
  const ipv6 = host.includes(":") || host.startsWith("[");
  if (!ipv4 && !ipv6) return undefined;
  const loopback = /^127\./.test(host) || host === "[::1]" || host === "::1";
  if (loopback) {
    const better = new URL(location.href);
    better.hostname = "localhost";
    return {
      message: "Passkeys do not work on an IP address: browsers accept only a name as a passkey's site. Open the console at",
      betterUrl: better.toString(),
    };
  }
  return {
    message:
      "Passkeys do not work on an IP address: browsers accept only a name as a passkey's site. Reach this server by a " +
      "domain name (for example through your TLS proxy) to use passkeys; API keys work here.",
  };
}
