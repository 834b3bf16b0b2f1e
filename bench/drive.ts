/**
 * Driving a Strongroom process with pre-signed requests through autocannon, as `bench/load.ts` and
 * `bench/scale.ts` do: every request's latency, the rate, and the server's CPU time per request.
 */
import type { ApiKeyStamper } from "@turnkey/api-key-stamper";
import autocannon from "autocannon";
import { cpuMs, percentile, postgresCpuMs, postgresCpuSince } from "./support.js";

export interface Signed {
  path: string;
  body: string;
  stamp: string;
}

export interface Measured {
  connections: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The server process's CPU time over the run's wall time (1 = one core busy throughout), and per request. */
  serverCpuShare?: number;
  serverCpuMsPerRequest?: number;
  /**
   * Where the CPU went during the run, in cores (CPU time over wall time): Strongroom's processes, the PostgreSQL
   * backends of its database (those that ended during the run not counted), and this process (autocannon, the load
   * generator).
   */
  cpuSplit?: { strongroom: number; postgres?: number; loadGenerator: number };
  /** Responses that were not 200 with the expected answer, plus socket errors and timeouts. */
  failures: number;
  firstFailure?: string;
}

export async function sign(stamper: ApiKeyStamper, path: string, body: string): Promise<Signed> {
  return { path, body, stamp: (await stamper.stamp(body)).stampHeaderValue };
}

/**
 * Sends `signed` (each exactly once, in order, shared by all connections) or, when `repeat` is given,
 * the one request `repeat` times; every answer must be 200 and pass `ok`.
 */
export async function drive(
  server: { url: string; pid: number; databaseName?: string },
  connections: number,
  signed: Signed[],
  ok: (body: string) => boolean,
  repeat?: number,
): Promise<Measured> {
  const { url } = server;
  const cpuBefore = cpuMs(server.pid);
  const postgresBefore = server.databaseName ? postgresCpuMs(server.databaseName) : undefined;
  const ownBefore = process.cpuUsage();
  let next = 0;
  let failures = 0;
  // autocannon's own duration only advances in whole sampling intervals (1 s); time the run here.
  const startedAt = performance.now();
  let lastResponseAt = startedAt;
  let firstFailure: string | undefined;
  const amount = repeat ?? signed.length - connections - 1; // each connection builds one request ahead
  if (amount <= 0) throw new Error("not enough signed requests");
  const latenciesMs: number[] = [];
  // Without a callback autocannon answers its Instance, which is also a promise of the result.
  const run = autocannon({
    url,
    connections,
    pipelining: 1,
    amount,
    timeout: 30,
    requests: [
      {
        method: "POST",
        setupRequest: (request) => {
          const item = repeat === undefined ? signed[next++] : signed[0];
          if (!item) throw new Error("ran out of signed requests");
          return { ...request, path: item.path, body: item.body, headers: { "content-type": "application/json", "x-stamp": item.stamp } };
        },
        onResponse: (status, body) => {
          lastResponseAt = performance.now();
          if (status !== 200 || !ok(body)) {
            failures++;
            firstFailure ??= `${status} ${body.slice(0, 300)}`;
          }
        },
      },
    ],
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  // autocannon's histogram keeps whole milliseconds; its response event carries the exact time.
  void run.on("response", (_client, _status, _bytes, responseTimeMs) => latenciesMs.push(responseTimeMs));
  const result = await run;
  failures += result.errors + result.timeouts;
  const elapsedMs = Math.max(1, lastResponseAt - startedAt);
  const perSecond = Math.round((result.requests.total * 1000) / elapsedMs);
  const cpuAfter = cpuMs(server.pid);
  const postgresAfter = server.databaseName ? postgresCpuMs(server.databaseName) : undefined;
  const own = process.cpuUsage(ownBefore);
  const cores = (ms: number) => +(ms / elapsedMs).toFixed(2);
  const cpuSplit =
    cpuBefore === undefined || cpuAfter === undefined
      ? undefined
      : {
          strongroom: cores(cpuAfter - cpuBefore),
          ...(postgresBefore && postgresAfter ? { postgres: cores(postgresCpuSince(postgresBefore, postgresAfter)) } : {}),
          loadGenerator: cores((own.user + own.system) / 1000),
        };
  const serverCpu =
    cpuBefore === undefined || cpuAfter === undefined
      ? undefined
      : {
          serverCpuShare: +((cpuAfter - cpuBefore) / elapsedMs).toFixed(2),
          serverCpuMsPerRequest: +((cpuAfter - cpuBefore) / result.requests.total).toFixed(3),
        };
  latenciesMs.sort((a, b) => a - b);
  const at = (p: number) => (latenciesMs.length === 0 ? 0 : +percentile(latenciesMs, p).toFixed(2));
  const cpuNote =
    serverCpu === undefined
      ? ""
      : `, server CPU ${Math.round(serverCpu.serverCpuShare * 100)}% (${serverCpu.serverCpuMsPerRequest} ms/request)`;
  process.stderr.write(
    `  ${connections} conn: ${result.requests.total} requests, ${perSecond}/s, p50 ${at(50)} ms${cpuNote}, ${failures} failures\n`,
  );
  return {
    connections,
    requests: result.requests.total,
    perSecond,
    p50Ms: at(50),
    p99Ms: at(99),
    ...serverCpu,
    ...(cpuSplit ? { cpuSplit } : {}),
    failures,
    ...(firstFailure ? { firstFailure } : {}),
  };
}

export const completed = (body: string) => body.includes('"status":"ACTIVITY_STATUS_COMPLETED"');
