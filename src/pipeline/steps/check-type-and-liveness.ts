import { invalidArgument, unauthenticated } from "../../errors.js";

const MAX_AGE_MS = 60 * 60 * 1000;
const MAX_FUTURE_MS = 5 * 60 * 1000;

/** Step "check type and liveness": the body names this route's activity type and was signed within the hour. */
export function checkTypeAndLiveness(expected: { operation: string; type: string }, body: Record<string, unknown>, now: Date): void {
  checkLiveness(body.timestampMs, now);
  if (body.type !== expected.type) {
    throw invalidArgument(
      `type: ${JSON.stringify(body.type)} does not match /public/v1/submit/${expected.operation}, which expects ${expected.type}`,
      [{ field: "type", description: `must be ${expected.type}` }],
    );
  }
}

function checkLiveness(timestampMs: unknown, now: Date): void {
  if (typeof timestampMs !== "string" || !/^[0-9]{1,16}$/.test(timestampMs)) {
    throw invalidArgument("timestampMs: required, a string of epoch milliseconds", [
      { field: "timestampMs", description: "required, a string of epoch milliseconds" },
    ]);
  }
  const age = now.getTime() - Number(timestampMs);
  if (age > MAX_AGE_MS) {
    throw unauthenticated(`stale request: timestampMs ${timestampMs} is more than one hour old`, "INVALID_TIME");
  }
  if (age < -MAX_FUTURE_MS) {
    throw unauthenticated(
      `request from the future: timestampMs ${timestampMs} is more than five minutes ahead of the server clock`,
      "INVALID_TIME",
    );
  }
}
