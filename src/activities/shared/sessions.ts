import { invalidArgument } from "../../errors.js";
import { requireUser } from "../../records/users.js";
import type { Queryable } from "../../store/database.js";

/** Documented default lifetime of sessions and their keys: 15 minutes. */
export const DEFAULT_SESSION_SECONDS = 900;

export function sessionSeconds(value: string | undefined, field = "expirationSeconds"): number {
  if (value === undefined) return DEFAULT_SESSION_SECONDS;
  const seconds = Number(value);
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw invalidArgument(`${field}: ${JSON.stringify(value)} must be a positive number of seconds`, "REQUEST_INVALID", [{ field, description: "a positive integer" }]);
  }
  return seconds;
}

/** The user a session is for (default: the requester), with their name for the result. */
export async function sessionUser(tx: Queryable, organizationId: string, userId: string) {
  return requireUser(tx, organizationId, userId);
}

/** invalidateExisting: the user's other session keys of this kind go away. */
export async function invalidateSessionKeys(tx: Queryable, userId: string, credentialTypes: string[]): Promise<void> {
  await tx.query("DELETE FROM api_keys WHERE user_id = $1 AND credential_type = ANY($2::text[])", [userId, credentialTypes]);
}
