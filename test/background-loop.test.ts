import { describe, expect, it } from "vitest";
import { startBackgroundLoop } from "../src/background-loop.js";

/** The poll never comes during these tests: every pass after a sleep is one a wake caused. */
const NEVER_MS = 3_600_000;

/** A pass that records each call and resolves when the test lets it. */
function controlledPass(answers: boolean[]) {
  const calls: number[] = [];
  let release: (() => void) | undefined;
  let entered: (() => void) | undefined;
  return {
    calls,
    pass: async () => {
      calls.push(calls.length);
      entered?.();
      await new Promise<void>((resolve) => (release = resolve));
      return answers[calls.length - 1] ?? false;
    },
    /** Resolves once the next pass has started. */
    started: () => new Promise<void>((resolve) => (entered = resolve)),
    finish: () => release!(),
  };
}

describe("startBackgroundLoop", () => {
  it("runs again at once while a pass answers true, then sleeps until woken", async () => {
    const run = controlledPass([true, true, false, false]);
    let started = run.started();
    const loop = startBackgroundLoop(run.pass, { pollIntervalMs: NEVER_MS }, (e) => {
      throw e;
    });
    for (let i = 0; i < 3; i++) {
      await started;
      started = run.started();
      run.finish();
    }
    // The third pass answered false: the loop sleeps, and only a wake starts the fourth.
    await new Promise((resolve) => setTimeout(resolve, 50)); // a fourth pass, were there one, would have begun by now
    expect(run.calls).toEqual([0, 1, 2]);
    loop.wake();
    await started;
    expect(run.calls).toEqual([0, 1, 2, 3]);
    const stopped = loop.stop();
    run.finish();
    await stopped;
    expect(run.calls).toEqual([0, 1, 2, 3]);
  });

  it("a wake that arrives during a pass is not lost: the next pass follows at once", async () => {
    const run = controlledPass([false, false]);
    let started = run.started();
    const loop = startBackgroundLoop(run.pass, { pollIntervalMs: NEVER_MS }, () => {});
    await started;
    started = run.started();
    loop.wake();
    run.finish();
    await started;
    expect(run.calls).toEqual([0, 1]);
    const stopped = loop.stop();
    run.finish();
    await stopped;
  });

  it("hands a failed pass to onError and keeps going; stop ends it without reporting", async () => {
    const errors: unknown[] = [];
    let passes = 0;
    let woke: () => void = () => {};
    const first = new Promise<void>((resolve) => (woke = resolve));
    const loop = startBackgroundLoop(
      async () => {
        passes++;
        woke();
        throw new Error(`pass ${passes} failed`);
      },
      { pollIntervalMs: NEVER_MS },
      (error) => errors.push(error),
    );
    await first;
    const second = new Promise<void>((resolve) => (woke = resolve));
    loop.wake();
    await second;
    await loop.stop();
    expect(passes).toBe(2);
    expect(errors.map(String)).toEqual(["Error: pass 1 failed"]);
  });

  it("with gatherMs, a wake during a pass waits out the gathering time from that pass's start; after a quiet spell it does not", async () => {
    const starts: number[] = [];
    let next: () => void = () => {};
    const started = () => new Promise<void>((resolve) => (next = resolve));
    let first = started();
    const loop = startBackgroundLoop(
      async () => {
        starts.push(performance.now());
        next();
        return false;
      },
      { pollIntervalMs: NEVER_MS, gatherMs: 300 },
      () => {},
    );
    await first;
    first = started();
    loop.wake(); // during the gathering time of the first pass
    await first;
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(295);
    await new Promise((resolve) => setTimeout(resolve, 400)); // a quiet spell longer than the gathering time
    const third = started();
    const wokenAt = performance.now();
    loop.wake();
    await third;
    expect(starts[2]! - wokenAt).toBeLessThan(150);
    await loop.stop();
    expect(starts).toHaveLength(3);
  });

  it("after a pass that found no work at all it sleeps the idle interval; after one with work due later, the poll", async () => {
    const answers: Array<boolean | "idle"> = ["idle", false, "idle"];
    const starts: number[] = [];
    let next: () => void = () => {};
    const started = () => new Promise<void>((resolve) => (next = resolve));
    let passStarted = started();
    const loop = startBackgroundLoop(
      async () => {
        starts.push(performance.now());
        next();
        return answers[starts.length - 1] ?? "idle";
      },
      { pollIntervalMs: 100, idleIntervalMs: NEVER_MS },
      () => {},
    );
    await passStarted;
    passStarted = started();
    await new Promise((resolve) => setTimeout(resolve, 300)); // three polls' time: the idle loop ran no pass
    expect(starts).toHaveLength(1);
    loop.wake();
    await passStarted; // the second pass answers false: the third follows a poll later, unwoken
    passStarted = started();
    await passStarted;
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(95);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(starts).toHaveLength(3);
    await loop.stop();
  });
});
