import { TurnkeyRequestError } from "@turnkey/sdk-server";

/** The error an SDK call was refused with; fails the test if the call succeeded. */
export async function refusal(promise: Promise<unknown>): Promise<TurnkeyRequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TurnkeyRequestError) return error;
    throw error;
  }
  throw new Error("expected the request to be refused, but it succeeded");
}

/** What became of an activity request: its status, or "refused with code N". */
export const activityOutcome = (request: Promise<{ activity: { status: string } }>) =>
  request.then(
    (r) => r.activity.status,
    (e: unknown) => `refused with code ${(e as { code?: number }).code}`,
  );
