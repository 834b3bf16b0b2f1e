/**
 * What a user may paste to sign in: `initial-credentials.json` or `init`'s JSON, or the `.env` lines
 * `strongroom dev` prints. Answers the organization and the private key found, whichever are there.
 */
export function parsePastedCredentials(text: string): { organizationId?: string; apiPrivateKey?: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      const json = JSON.parse(trimmed) as Record<string, unknown>;
      const pick = (key: string) => (typeof json[key] === "string" ? json[key] : undefined);
      return { organizationId: pick("organizationId"), apiPrivateKey: pick("apiPrivateKey") };
    } catch {
      return {};
    }
  }
  const line = (name: string) => new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=\\s*"?([^"\\s]+)"?\\s*$`, "m").exec(trimmed)?.[1];
  return {
    organizationId: line("(?:TURNKEY_)?ORGANIZATION_ID"),
    apiPrivateKey: line("(?:TURNKEY_)?API_PRIVATE_KEY"),
  };
}
