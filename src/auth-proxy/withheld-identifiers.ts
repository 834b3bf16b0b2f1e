import type { ErrorBody } from "../errors.js";

const IDENTIFIER = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
export const WITHHELD = "(withheld)";

/**
 * A refusal to the auth proxy's anonymous caller names no identifier the caller did not send (or that the
 * config makes public: its organization, which /v1/wallet_kit_config answers). Refusals come from the
 * activities the proxy submits, whose messages are written for a member of the organization and may name the
 * user, sub-organization, key or provider they found; to the caller, those ids tell whose account an email,
 * token or key belongs to. Every id (Strongroom's ids are UUIDs) is replaced by "(withheld)" unless the
 * caller's own request holds it.
 */
export function withholdIdentifiers(body: ErrorBody, sent: readonly string[]): ErrorBody {
  const known = sent.join("\n").toLowerCase();
  const withhold = (text: string) => text.replace(IDENTIFIER, (id) => (known.includes(id.toLowerCase()) ? id : WITHHELD));
  const scrub = (value: unknown): unknown => {
    if (typeof value === "string") return withhold(value);
    if (Array.isArray(value)) return value.map(scrub);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, scrub(inner)]));
    return value;
  };
  return { code: body.code, message: withhold(body.message), details: scrub(body.details) as ErrorBody["details"] };
}
