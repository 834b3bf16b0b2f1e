import { invalidArgument } from "../../errors.js";

/** Longest session (read-write sessions, logins, email/OTP/OAuth auth, recovery credentials): one year, as the auth proxy's sessionExpirationSeconds. */
export const SESSION_MAX_SECONDS = 31_536_000;
/** Longest expiring API key: 100 years — long enough for any use, far from the limits of dates and timestamps. */
export const API_KEY_MAX_SECONDS = 3_153_600_000;

/**
 * A lifetime in seconds from the API's decimal string: a whole number from 1 to `max`, else 400 naming the
 * field. Without a bound, a value such as 2^53−1 seconds gives an expiry past the last representable date.
 */
export function boundedSeconds(value: string, field: string, max: number): number {
  const seconds = Number(value);
  if (!Number.isSafeInteger(seconds) || seconds <= 0 || seconds > max) {
    const why = `must be a whole number of seconds from 1 to ${max}`;
    throw invalidArgument(`${field}: ${JSON.stringify(value)} ${why}`, [{ field, description: why }]);
  }
  return seconds;
}
