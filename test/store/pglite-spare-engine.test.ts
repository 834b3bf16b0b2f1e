import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { Database } from "../../src/store/database.js";
import { openStore } from "../../src/store/open.js";
import { repoRoot } from "../helpers/processes.js";

/** What a store's engine has done so far: a transaction id only grows, so a reused engine shows one past the last store's. */
const transactionId = async (db: Database) => Number((await db.query<{ id: string }>("SELECT txid_current()::text AS id"))[0]!.id);

const sequences = async (db: Database) =>
  db.query<{ name: string; last: string | null }>("SELECT sequencename AS name, last_value::text AS last FROM pg_sequences ORDER BY 1");

const auditState = (db: Database) => db.query("SELECT * FROM audit_log_state");

describe("an in-memory store's engine, reused by the next in-memory store of the process", () => {
  it("carries none of the closed store's rows, counters, schemas or session state, and the closed store's handle refuses", async () => {
    const first = await openStore({ dataDir: "memory://" });
    const templateSequences = await sequences(first);
    const templateAudit = await auditState(first);
    const firstTransaction = await transactionId(first);

    // Rows in a table the template leaves empty and in one it fills, an identity counter moved, a schema, session state.
    await first.query("INSERT INTO chain_cursors (chain, last_block) VALUES ($1, $2)", ["left-behind", 1]);
    await first.query("UPDATE audit_log_state SET size = size + 7");
    await first.query("SELECT nextval(pg_get_serial_sequence('api_keys', 'seq'))");
    await first.exec("CREATE SCHEMA left_behind; CREATE TABLE left_behind.t (x int)");
    await first.exec(
      "SELECT set_config('strongroom.left_behind', 'yes', false); PREPARE left_behind AS SELECT 1; SELECT pg_advisory_lock(4242)",
    );
    expect(await sequences(first)).not.toEqual(templateSequences);
    await first.close();

    const second = await openStore({ dataDir: "memory://" });
    try {
      expect(await transactionId(second)).toBeGreaterThan(firstTransaction); // the same engine, not a fresh one
      expect(await second.query("SELECT chain FROM chain_cursors")).toEqual([]);
      expect(await auditState(second)).toEqual(templateAudit);
      expect(await sequences(second)).toEqual(templateSequences);
      expect(await second.query("SELECT nspname FROM pg_namespace WHERE nspname = 'left_behind'")).toEqual([]);
      // PostgreSQL keeps a custom setting's name once a session used it; RESET ALL empties its value.
      const [setting] = await second.query<{ value: string | null }>("SELECT current_setting('strongroom.left_behind', true) AS value");
      expect([null, ""]).toContain(setting!.value);
      expect(await second.query("SELECT name FROM pg_prepared_statements WHERE name = 'left_behind'")).toEqual([]);
      expect(await second.query("SELECT objid FROM pg_locks WHERE locktype = 'advisory'")).toEqual([]);

      await expect(first.query("SELECT 1")).rejects.toThrow(/the store is closed/);
      await expect(first.exec("SELECT 1")).rejects.toThrow(/the store is closed/);
      await expect(first.transaction((tx) => tx.query("SELECT 1"))).rejects.toThrow(/the store is closed/);
    } finally {
      await second.close();
    }
  });

  it("is not reused once its tables differ from the template's", async () => {
    const first = await openStore({ dataDir: "memory://" });
    await first.exec("CREATE TABLE not_in_the_template (x int)");
    const lastTransaction = await transactionId(first);
    await first.close();

    const second = await openStore({ dataDir: "memory://" });
    try {
      expect(await second.query("SELECT to_regclass('not_in_the_template') AS found")).toEqual([{ found: null }]);
      expect(await transactionId(second)).toBeLessThan(lastTransaction); // a fresh engine from the template
    } finally {
      await second.close();
    }
  });

  it("does not keep its process alive: a process exits soon after its last in-memory store closes", async () => {
    // An idle engine arms a 10-second timer (PostgreSQL's statistics flush, and before log_startup_progress_interval=0 a
    // start-up progress timer every 10 seconds, forever): kept as a spare, it would hold the process that long or longer.
    const script =
      `const { openStore } = await import("./src/store/open.ts");` +
      `for (let i = 0; i < 2; i++) { const db = await openStore({ dataDir: "memory://" }); await db.query("SELECT 1"); await db.close(); }` +
      `console.log("closed");`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot });
    const exitedAfterClose = await new Promise<number>((resolve, reject) => {
      let closedAt: number | undefined;
      child.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("closed")) closedAt = performance.now();
      });
      child.once("exit", (code) =>
        code === 0 && closedAt !== undefined ? resolve(performance.now() - closedAt) : reject(new Error(`the child exited with ${code}`)),
      );
    });
    expect(exitedAfterClose).toBeLessThan(5_000);
  }, 60_000);
});
