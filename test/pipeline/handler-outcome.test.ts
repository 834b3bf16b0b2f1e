import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineActivity } from "../../src/operations/activity-definition.js";
import { runHandler, type BadInput } from "../../src/pipeline/steps/execute.js";
import { failedPrecondition, invalidArgument } from "../../src/errors.js";
import type { OrganizationRow } from "../../src/records/organization.js";
import type { Services } from "../../src/services.js";
import type { Database } from "../../src/store/database.js";
import { openStore } from "../../src/store/open.js";

/**
 * What a handler's error makes of its activity: a business failure or a bug fails the activity (its
 * writes rolled back), while a deadlock or serialization failure belongs to the store and propagates,
 * so the adapter retries the whole transaction instead of recording a FAILED activity.
 */
function throwing(error: unknown) {
  return defineActivity({
    operation: "test_operation",
    type: "ACTIVITY_TYPE_TEST",
    intentKey: "testIntent",
    resultKey: "testResult",
    result: Type.Object({}),
    sdkMethod: "test",
    summary: "throws what the test gives it, after a write",
    resource: "TEST",
    action: "CREATE",
    parameters: Type.Object({}),
    async execute({ tx }) {
      await tx.query("INSERT INTO handler_writes (note) VALUES ('written before the error')");
      throw error;
    },
  });
}

const sqlError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("a handler's error", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openStore({ dataDir: "memory://" });
    await db.exec("CREATE TABLE handler_writes (note text)");
  });
  afterAll(() => db.close());

  const run = (error: unknown, badInput: BadInput = "refuse") =>
    db.transaction((tx) =>
      runHandler(
        tx,
        {} as Services,
        {
          id: "activity",
          requesterUserId: "user",
          byRootQuorum: false,
          organization: { id: "organization" } as OrganizationRow,
          definition: throwing(error),
          params: {},
        },
        new Date(),
        () => undefined,
        undefined,
        badInput,
      ),
    );

  it("fails the activity, with its message, for a business failure; the handler's writes are undone", async () => {
    const outcome = await run(failedPrecondition("the wallet is busy"));
    expect(outcome.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(outcome.status === "ACTIVITY_STATUS_FAILED" && outcome.failure.message).toBe("the wallet is busy");
    expect(await db.query("SELECT * FROM handler_writes")).toEqual([]);
  });

  it("fails the activity with an internal error, not the bug's text, for an unexpected error", async () => {
    const outcome = await run(new TypeError("secret detail"));
    expect(outcome.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(outcome.status === "ACTIVITY_STATUS_FAILED" && outcome.failure.message).toMatch(/failed unexpectedly/);
  });

  it.each([
    ["a deadlock", sqlError("40P01", "deadlock detected")],
    ["a serialization failure", sqlError("40001", "could not serialize access")],
    ["a stale prepared plan", sqlError("0A000", "cached plan must not change result type")],
  ])("propagates %s, so the transaction is retried rather than the activity failed", async (_, error) => {
    await expect(run(error)).rejects.toBe(error);
    expect(await db.query("SELECT * FROM handler_writes")).toEqual([]);
  });

  it("refuses the request for bad input at submission (400, nothing written), and fails the activity at a deciding approval", async () => {
    const bad = invalidArgument("userEmail: not an email");
    await expect(run(bad, "refuse")).rejects.toBe(bad);
    expect(await db.query("SELECT * FROM handler_writes")).toEqual([]);
    const outcome = await run(bad, "fail");
    expect(outcome.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(outcome.status === "ACTIVITY_STATUS_FAILED" && outcome.failure).toBe(bad);
    expect(await db.query("SELECT * FROM handler_writes")).toEqual([]);
  });
});
