import { describe, expect, it } from "vitest";
import { ApiError, errorReply, GrpcCode } from "../../src/errors.js";
import { DatabaseUnavailable, isConnectionFailure } from "../../src/store/database.js";

describe("what counts as the database being unavailable", () => {
  it("connection errors, and servers shutting down, starting or read-only", () => {
    for (const code of ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "08006", "08001", "57P01", "57P03", "25006"]) {
      expect(isConnectionFailure(Object.assign(new Error("x"), { code })), code).toBe(true);
    }
    expect(isConnectionFailure(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isConnectionFailure(new Error("timeout exceeded when trying to connect"))).toBe(true);
  });

  it("not a failure of the work itself: constraint violations, conflicts, the API's own errors (numeric codes)", () => {
    for (const code of ["23505", "40001", "40P01", "42P01", "28P01"]) {
      expect(isConnectionFailure(Object.assign(new Error("x"), { code })), code).toBe(false);
    }
    expect(isConnectionFailure(new ApiError(GrpcCode.PERMISSION_DENIED, "denied"))).toBe(false);
    expect(isConnectionFailure(undefined)).toBe(false);
  });

  it("answers 503 UNAVAILABLE in the API's error shape, naming no host", () => {
    const reply = errorReply(
      new DatabaseUnavailable(Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { code: "ECONNREFUSED" })),
    );
    expect(reply).toEqual({ status: 503, body: { code: 14, message: "the database is unavailable; retry shortly", details: [] } });
  });
});
