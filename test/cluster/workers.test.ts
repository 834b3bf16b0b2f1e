import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initRoot, sdkClient, sharedPostgres, type RootCredentials } from "../helpers/cluster.js";
import { loadUntil, slowRequest } from "../helpers/keep-alive-load.js";
import { embeddedCliEnv, runCli, startServerProcess, type ServerProcess } from "../helpers/processes.js";
import { p256Stamp } from "../helpers/requests.js";

/** The drain time (src/server/drain.ts) and the most a log may take to be written out (serve.ts). */
const DRAIN_MS = 10_000;
const LOG_FINISH_MS = 2_000;
/** "At once", on a busy two-core machine. */
const AT_ONCE_MS = 5_000;

interface LogLine {
  msg: string;
  pid: number;
  worker?: number;
  [field: string]: unknown;
}

/** `serve --workers 2` with its log (JSON lines of every process, on one stdout) parsed as it comes. */
async function startWorkers(env: NodeJS.ProcessEnv) {
  const lines: LogLine[] = [];
  const unreadable: string[] = [];
  let partial = "";
  const server = await startServerProcess({ ...env, LOG_LEVEL: "info" }, ["--workers", "2", "--metrics-port", "0"], {
    onStdout: (text) => {
      const split = (partial + text).split("\n");
      partial = split.pop()!;
      for (const line of split) {
        try {
          lines.push(JSON.parse(line) as LogLine);
        } catch {
          unreadable.push(line);
        }
      }
    },
  });
  /** Waits until `condition` holds; throws, with the last lines of the log, after `timeoutMs`. */
  const until = async (condition: () => boolean, timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline)
        throw new Error(
          `waited in vain; the log's last lines:\n${lines
            .slice(-20)
            .map((l) => JSON.stringify(l))
            .join("\n")}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** The first line (from `from` on) that `match` accepts, once it is written. */
  const line = async (match: (line: LogLine) => boolean, from = 0) => {
    await until(() => lines.slice(from).some(match));
    return lines.slice(from).find(match)!;
  };
  const startLine = await line((l) => /^Strongroom .* started \(2 workers\)/.test(l.msg));
  return { server, lines, unreadable, until, line, workerPids: startLine.workerPids as number[], metricsUrl: startLine.metrics as string };
}

/** Whether a process runs (a zombie nobody reaped yet does not). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/** The workers that received `path` (their `incoming request` lines from `from` on). */
/** A stamped whoami on a connection of its own (no keep-alive agent); answers the HTTP status. */
function whoamiOnNewConnection(url: string, root: RootCredentials): Promise<number> {
  const body = JSON.stringify({ organizationId: root.organizationId });
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/public/v1/query/whoami`, {
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "x-stamp": p256Stamp(body, root.apiPublicKey, root.apiPrivateKey) },
    });
    request.once("response", (response) => {
      response.resume();
      response.once("end", () => resolve(response.statusCode!));
    });
    request.once("error", reject);
    request.end(body);
  });
}

const servedBy = (lines: LogLine[], path: string, from = 0) =>
  new Set(lines.slice(from).flatMap((l) => (l.msg === "incoming request" && (l.req as { url: string }).url === path ? [l.pid] : [])));

describe("serve --workers on the embedded store", () => {
  const work = mkdtempSync(join(tmpdir(), "strongroom-workers-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("refuses more than one worker, before it opens anything", () => {
    const dataDir = join(work, "never-opened");
    const run = runCli(["serve", "--data-dir", dataDir, "--workers", "2", "--port", "0", "--auth-proxy-port", "off"], embeddedCliEnv());
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/--workers 2: the embedded store .* belongs to one process.*use PostgreSQL \(DATABASE_URL\)/);
    expect(existsSync(dataDir)).toBe(false);
  });
});

/**
 * `serve --workers 2` on PostgreSQL, through real HTTP and the SDK: one start, requests on both workers, a worker
 * killed and replaced with nothing acknowledged lost, and SIGTERM under keep-alive load drained by every worker.
 */
describe.skipIf(!process.env.DATABASE_URL)("serve --workers 2 on PostgreSQL (needs DATABASE_URL)", () => {
  let database: Awaited<ReturnType<typeof sharedPostgres>>;
  let root: RootCredentials;
  let cluster: Awaited<ReturnType<typeof startWorkers>>;
  let sql: pg.Client;
  const extraServers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await sharedPostgres();
    root = initRoot(database.env);
    cluster = await startWorkers(database.env);
    sql = new pg.Client({ connectionString: database.sqlUrl });
    await sql.connect();
  }, 300_000);
  afterAll(async () => {
    for (const server of [cluster?.server, ...extraServers]) await server?.kill();
    await sql?.end();
    await database?.drop();
  });

  it("starts once: one start-up line for both workers, every log line says which process wrote it, requests reach both", async () => {
    const { lines, workerPids, server } = cluster;
    expect(lines.filter((l) => / started/.test(l.msg))).toHaveLength(1);
    expect(new Set(workerPids).size).toBe(2);
    expect(lines.find((l) => / started/.test(l.msg))!.connectionsPerWorker).toBe(10);
    const from = lines.length;
    const client = sdkClient(server.url, root, root.organizationId);
    const answers = await Promise.all(Array.from({ length: 24 }, () => client.getWhoami({})));
    expect(answers.every((a) => a.organizationId === root.organizationId)).toBe(true);
    // Connections are handed to the workers in turn.
    await cluster.until(() => servedBy(lines, "/public/v1/query/whoami", from).size === 2, 30_000);
    expect([...servedBy(lines, "/public/v1/query/whoami", from)].sort()).toEqual([...workerPids].sort());
    // The primary's metrics port sums the workers' counters.
    const metrics = await (await fetch(cluster.metricsUrl)).text();
    expect(metrics).toContain('strongroom_operation_duration_seconds_count{operation="whoami",kind="query",status="200"} 24\n');
    // One stream of whole lines: the primary's say worker 0, each worker's its number.
    expect(cluster.unreadable).toEqual([]);
    const workerOf = new Map([[server.child.pid!, 0], ...workerPids.map((pid, i) => [pid, i + 1] as [number, number])]);
    for (const line of lines) expect(line.worker, JSON.stringify(line)).toBe(workerOf.get(line.pid));
  }, 60_000);

  it("replaces a killed worker; every activity acknowledged meanwhile is stored", async () => {
    const { lines, workerPids, server } = cluster;
    const client = sdkClient(server.url, root, root.organizationId);
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let stop = false;
    let n = 0;
    const loop = async () => {
      while (!stop) {
        // Renames: no limit of the organization ends them however long the replacement takes to start.
        const userName = `renamed during kill ${n++}`;
        try {
          const { activity } = await client.updateUserName({ userId: root.userId, userName });
          if (activity.status === "ACTIVITY_STATUS_COMPLETED") acknowledged.push(activity.id);
          else failures.push(`${userName}: ${activity.status}`);
        } catch (error) {
          // A request on the killed worker's connection is cut: never acknowledged. Any answer must be a success.
          const text = String((error as { cause?: unknown }).cause ?? error);
          if (!/fetch failed|socket|ECONNRESET|other side closed|terminated/i.test(`${String(error)} ${text}`))
            failures.push(`${userName}: ${text}`);
        }
      }
    };
    const loops = Promise.all(Array.from({ length: 6 }, loop));
    // Bounded, and saying what the renames answered: a wait that can only time out the whole test explains nothing.
    const acknowledgedAtLeast = (count: number) =>
      cluster
        .until(() => acknowledged.length >= count, 60_000)
        .catch((error: unknown) => {
          throw new Error(
            `${acknowledged.length} renames acknowledged, not ${count}; failures: ${JSON.stringify(failures.slice(-5))}; ${String(error)}`,
          );
        });
    let replacement: number;
    try {
      await acknowledgedAtLeast(20);
      const from = lines.length;
      const victim = workerPids[0]!;
      process.kill(victim, "SIGKILL");
      const exitLine = await cluster.line(
        (l) => l.workerPid === victim && /was killed by SIGKILL; starting another in 0.5 s/.test(l.msg),
        from,
      );
      expect(exitLine).toMatchObject({ worker: 0, slot: 1, signal: "SIGKILL" });
      const replaced = await cluster.line((l) => /^worker 1 replaced: pid \d+ serves/.test(l.msg), from);
      replacement = replaced.workerPid as number;
      expect(replacement).not.toBe(victim);
      await acknowledgedAtLeast(acknowledged.length + 10);
    } finally {
      stop = true;
      const unanswered = new Promise((_, reject) =>
        setTimeout(() => reject(new Error("a rename got no answer within 30 s of the end")), 30_000).unref(),
      );
      await Promise.race([loops, unanswered]);
    }
    expect(failures).toEqual([]);
    const stored = await sql.query<{ id: string }>(
      "SELECT id FROM activities WHERE id = ANY($1) AND status = 'ACTIVITY_STATUS_COMPLETED'",
      [acknowledged],
    );
    expect(stored.rows.map((r) => r.id).sort()).toEqual([...acknowledged].sort());
    // The replacement takes connections like any worker: new ones (the client's keep-alive connections may all
    // be to the other worker), which the primary hands round-robin.
    const beforeWhoami = lines.length;
    const servedTheReplacement = () => servedBy(lines, "/public/v1/query/whoami", beforeWhoami).has(replacement);
    for (let sent = 0; !servedTheReplacement() && sent < 40; sent++) expect(await whoamiOnNewConnection(server.url, root)).toBe(200);
    await cluster.until(servedTheReplacement, 30_000);
    workerPids[0] = replacement;
  }, 300_000);

  it("drains every worker on SIGTERM under keep-alive load: only answers or refused connections, exit 0 within the drain time", async () => {
    const { server, workerPids, lines } = cluster;
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      server.child.once("exit", (code) => resolve({ code, at: Date.now() })),
    );
    // Its output ends once every process that shares it (the workers too) has exited.
    const closed = new Promise((resolve) => server.child.once("close", resolve));
    const load = loadUntil(server.url, exited);
    while (load.outcomes.answered < 60) await new Promise((resolve) => setTimeout(resolve, 20));
    const signalledAt = Date.now();
    server.child.kill("SIGTERM");
    const { code, at } = await exited;
    await closed;
    expect(code).toBe(0);
    expect(at - signalledAt).toBeLessThan(DRAIN_MS + LOG_FINISH_MS);
    const outcomes = await load.finished;
    expect(outcomes.resets).toEqual([]);
    for (const pid of workerPids) expect(alive(pid), `worker ${pid}`).toBe(false);
    expect(
      lines
        .filter((l) => l.msg === "finishing requests in flight, then stopping")
        .map((l) => l.pid)
        .sort(),
    ).toEqual([...workerPids].sort());
    expect(lines.at(-1)?.msg).toMatch(/^Strongroom .* stopped$/);
  }, 60_000);

  it("a second signal ends the primary and every worker at once", async () => {
    const second = await startWorkers(database.env);
    extraServers.push(second.server);
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      second.server.child.once("exit", (code) => resolve({ code, at: Date.now() })),
    );
    // A request whose body never ends keeps its worker draining until the drain time is up.
    await slowRequest(second.server.url);
    second.server.child.kill("SIGTERM");
    expect(await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1000))])).toBeUndefined();
    const secondAt = Date.now();
    second.server.child.kill("SIGTERM");
    const { code, at } = await exited;
    expect(code).toBe(1);
    expect(at - secondAt).toBeLessThan(AT_ONCE_MS);
    // SIGKILLed by the primary: gone as soon as the kernel reaps them.
    const deadline = Date.now() + AT_ONCE_MS;
    while (second.workerPids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(second.workerPids.filter(alive)).toEqual([]);
  }, 300_000);
});
