import { describe, expect, it } from "vitest";
import { connectionsPerWorker, resolveWorkerCount } from "../../../src/server/cluster/worker-count.js";

describe("serve --workers (STRONGROOM_WORKERS)", () => {
  it("defaults to one worker per core on PostgreSQL and to one on the embedded store", () => {
    expect(resolveWorkerCount(undefined, true, 4)).toBe(4);
    expect(resolveWorkerCount("", true, 2)).toBe(2);
    expect(resolveWorkerCount(undefined, false, 4)).toBe(1);
  });

  it("takes a whole number; one is always allowed", () => {
    expect(resolveWorkerCount("3", true, 2)).toBe(3);
    expect(resolveWorkerCount("1", true, 8)).toBe(1);
    expect(resolveWorkerCount("1", false, 8)).toBe(1);
  });

  it("refuses anything else, naming the setting", () => {
    for (const bad of ["0", "-1", "2.5", "two", "1e3", "10000"])
      expect(() => resolveWorkerCount(bad, true, 2), bad).toThrow(
        /--workers \(STRONGROOM_WORKERS\) must be a whole number of processes from 1 to 9999/,
      );
  });

  it("refuses several workers on the embedded store, saying to use PostgreSQL", () => {
    expect(() => resolveWorkerCount("2", false, 2)).toThrow(/--workers 2: the embedded store .* belongs to one process.*DATABASE_URL/);
  });
});

describe("the PostgreSQL connections each worker holds when DATABASE_POOL_SIZE is not set", () => {
  it("is 10, as one process, up to 8 workers; with more, together they stay within 80, and each holds at least 2", () => {
    expect([1, 2, 8].map(connectionsPerWorker)).toEqual([10, 10, 10]);
    expect([9, 16, 32].map(connectionsPerWorker)).toEqual([8, 5, 2]);
    expect(connectionsPerWorker(64)).toBe(2);
    for (let workers = 1; workers <= 40; workers++) expect(workers * connectionsPerWorker(workers)).toBeLessThanOrEqual(80);
  });
});
