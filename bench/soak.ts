/**
 * Soak: Strongroom (built, in a process of its own) under a steady load for a long time, its memory sampled. The
 * load is a fixed rate of SDK calls — signatures, whoami, user creations (a new sub-organization every 80 users, to
 * stay under the per-organization limit) — from a few concurrent clients; every answer must be a success. Every
 * SOAK_SAMPLE_SECONDS the server's resident memory (VmRSS, from /proc) is recorded; the report gives the samples,
 * and compares the first and last tenth of the run once the warm-up (the first tenth) is over.
 *
 *   npm run soak                                   # 30 minutes on PGlite
 *   SOAK_MINUTES=5 SOAK_RATE=30 npm run soak       # shorter, faster
 *   DATABASE_URL=postgres://… npm run soak          # on a fresh PostgreSQL database
 */
import { readFileSync } from "node:fs";
import { ETH, machine, startBuiltServerProcess, store } from "./support.js";

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const RATE = Number(process.env.SOAK_RATE ?? 20); // calls per second, in total
const CLIENTS = 4;
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 10);
const USERS_PER_ORGANIZATION = 80;

/** Resident memory of a process in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

const mean = (values: number[]) => Math.round((values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)) * 10) / 10;

async function main(): Promise<void> {
  const server = await startBuiltServerProcess();
  const root = server.client();
  const started = Date.now();
  const endsAt = started + MINUTES * 60_000;
  const samples: { minute: number; rssMb: number; calls: number }[] = [];
  const counts = { calls: 0, failures: 0 };
  let firstFailure: string | undefined;
  const sample = () =>
    samples.push({ minute: Math.round(((Date.now() - started) / 60_000) * 100) / 100, rssMb: rssMb(server.pid), calls: counts.calls });
  sample();
  const sampler = setInterval(sample, SAMPLE_SECONDS * 1000);

  const wallet = await root.createWallet({ walletName: "soak", accounts: [ETH] });
  const signWith = wallet.addresses[0]!;
  let organization = { id: server.root.organizationId, users: 0 };
  let rotating: Promise<void> | undefined;
  const nextOrganization = async () => {
    const created = await root.createSubOrganization({
      subOrganizationName: `soak ${Date.now()}`,
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "root",
          apiKeys: [{ apiKeyName: "root", publicKey: server.root.apiPublicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    organization = { id: created.subOrganizationId, users: 0 };
  };

  const oneCall = async (n: number) => {
    const kind = n % 10;
    if (kind < 6) {
      await root.signRawPayload({
        signWith,
        payload: n.toString(16).padStart(64, "0"),
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      });
    } else if (kind < 9) {
      await root.getWhoami({});
    } else {
      if (organization.users >= USERS_PER_ORGANIZATION) await (rotating ??= nextOrganization().finally(() => (rotating = undefined)));
      organization.users++;
      await root.createUsers({
        organizationId: organization.id,
        users: [{ userName: `soak ${n}`, userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }],
      });
    }
  };

  // Each client paces itself to RATE / CLIENTS calls a second.
  const interval = (1000 * CLIENTS) / RATE;
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let due = Date.now(); Date.now() < endsAt; due += interval) {
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        try {
          await oneCall(next++);
        } catch (error) {
          counts.failures++;
          firstFailure ??= String(error);
        }
        counts.calls++;
      }
    }),
  );
  clearInterval(sampler);
  sample();
  await server.stop();

  const tenth = Math.max(1, Math.floor(samples.length / 10));
  const afterWarmup = samples.slice(tenth);
  const early = afterWarmup.slice(0, tenth).map((s) => s.rssMb);
  const late = afterWarmup.slice(-tenth).map((s) => s.rssMb);
  const rss = afterWarmup.map((s) => s.rssMb);
  const report = {
    store: store(),
    machine: machine(),
    minutes: MINUTES,
    targetCallsPerSecond: RATE,
    calls: counts.calls,
    callsPerSecond: Math.round((counts.calls / ((Date.now() - started) / 1000)) * 10) / 10,
    failures: counts.failures,
    ...(firstFailure ? { firstFailure } : {}),
    rssMb: {
      start: samples[0]!.rssMb,
      afterWarmupMin: Math.min(...rss),
      afterWarmupMax: Math.max(...rss),
      earlyMean: mean(early),
      lateMean: mean(late),
    },
    samples,
  };
  process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  if (counts.failures > 0) process.exitCode = 1;
}

await main();
