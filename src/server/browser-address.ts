/**
 * The address to give a person for a server listening at `url`: browsers refuse an IP address as a WebAuthn
 * relying party ("This is an invalid domain"), so a server bound to loopback (or to every interface) is shown
 * as `localhost`, where the console's passkeys work. The server still binds where it was told; tools and SDKs
 * may keep using the IP address.
 */
export function browserAddress(url: string): string {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (/^127\.\d+\.\d+\.\d+$/.test(host) || host === "::1" || host === "0.0.0.0" || host === "::") parsed.hostname = "localhost";
  return parsed.toString().replace(/\/$/, "");
}

/** The console's address for a server listening at `url`. */
export const consoleAddress = (url: string) => `${browserAddress(url)}/console/`;
