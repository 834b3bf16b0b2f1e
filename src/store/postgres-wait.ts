import { setTimeout as sleep } from "node:timers/promises";
import { isConnectionFailure } from "./database.js";

/** How long one attempt to connect may take before it counts as failed (the pool's connections too). */
export const CONNECT_TIMEOUT_MS = 5000;
const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 5000;

/**
 * Where a connection string points, for logs and errors: hosts, ports and database, never the user's
 * password (nor the user). A multi-host string (`host1:5432,host2:5432`) names every host.
 */
export function describePostgres(connectionString: string): string {
  const match = /^[a-z]+:\/\/(?:[^@/]*@)?([^/?#]*)(\/[^?#]*)?/i.exec(connectionString);
  if (!match) return "(a connection string that is not a URL)";
  const database = decodeURIComponent(match[2]?.slice(1) ?? "") || "(the user's database)";
  return `${match[1] || "localhost"}/${database}`;
}

/**
 * Runs `connect` until it succeeds: while it fails because PostgreSQL cannot be reached or cannot serve yet
 * (starting, shutting down), again after a pause that doubles up to 5 s, saying each time through `onWait`
 * what it waits for; for at most `waitMs`, then the last failure is thrown, naming the target. Any other
 * failure (a wrong password, no such database) is thrown at once.
 */
export async function connectWaiting<T>(
  connect: () => Promise<T>,
  target: string,
  waitMs: number,
  onWait: (message: string) => void,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let pause = FIRST_RETRY_MS; ; pause = Math.min(pause * 2, LONGEST_RETRY_MS)) {
    try {
      return await connect();
    } catch (error) {
      if (!isConnectionFailure(error)) throw error;
      const reason = (error as Error).message || (error as { code?: string }).code || String(error);
      if (Date.now() + pause > deadline) {
        throw new Error(
          `PostgreSQL at ${target} is unavailable: ${reason}` +
            (waitMs > 0 ? ` (waited ${Math.round(waitMs / 1000)} s: DATABASE_WAIT_SECONDS)` : ""),
          { cause: error },
        );
      }
      onWait(`waiting for PostgreSQL at ${target}: ${reason}; trying again in ${pause / 1000} s`);
      await sleep(pause);
    }
  }
}
