import { TurnkeyRequestError } from "@turnkey/sdk-server";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore, type StoreOptions } from "../../src/store/open.js";
import { embeddedEnv, initRoot, sdkClient, sharedPostgres, type RootCredentials } from "../helpers/cluster.js";
import { startServerProcess, type ServerProcess } from "../helpers/processes.js";

/**
 * SIGKILL under load. Several SDK clients create users and wallets, sign and tag while the server
 * process is killed at a random moment; after every restart each activity whose response was
 * received must be there, complete, with its objects. At the end the store is opened directly
 * (no repair step exists) and checked for half-applied work.
 */
// 5 by default keeps the file to a few minutes (each restart reloads the sources); the figures in SECURITY.md are from runs of 10.
const KILLS = Number(process.env.STRONGROOM_CRASH_KILLS ?? 5);
/** A round takes seconds to tens of seconds on a loaded machine (a restart reloads the sources). */
const TIMEOUT_MS = Math.max(600_000, KILLS * 90_000);
/** How long a restart may take to answer /health: long runs share a loaded machine (STRONGROOM_CRASH_START_TIMEOUT_MS). */
const START_TIMEOUT_MS = Number(process.env.STRONGROOM_CRASH_START_TIMEOUT_MS ?? 120_000);
const start = (env: NodeJS.ProcessEnv) => startServerProcess(env, [], { startTimeoutMs: START_TIMEOUT_MS });
const CLIENTS = 3;
const ACCOUNTS = [
  { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
  { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" },
] as const;

type Acknowledged =
  | { kind: "user"; activityId: string; userId: string; name: string }
  | { kind: "wallet"; activityId: string; walletId: string; addresses: string[] }
  | { kind: "signature"; activityId: string; r: string }
  | { kind: "tag"; activityId: string; tagId: string };

type Client = ReturnType<typeof sdkClient>;

/** True for the errors a killed server causes (connection refused or reset), not answers from it. */
function isConnectionLoss(error: unknown): boolean {
  if (error instanceof TurnkeyRequestError) return false;
  const text = `${String(error)} ${String((error as { cause?: unknown }).cause ?? "")}`;
  return /fetch failed|ECONNRESET|ECONNREFUSED|socket|other side closed|terminated/i.test(text);
}

/** The SDK hands back a FAILED activity instead of throwing: say what failed rather than read a missing result. */
function completed<T extends { activity: { status: string; failure?: unknown } }>(response: T): T {
  const { status, failure } = response.activity;
  if (status !== "ACTIVITY_STATUS_COMPLETED") throw new Error(`activity ${status}: ${JSON.stringify(failure)}`);
  return response;
}

type Kind = Acknowledged["kind"];
const ROTATION: Kind[] = ["user", "wallet", "signature", "tag"];
/**
 * Each round loads a sub-organization of its own, and within a round creations of each kind stay below
 * its documented limits (100 users, 100 wallets, 10 tags): attempts count, since one cut off in flight
 * may still have landed. Past the budget a worker signs instead.
 */
const BUDGET: Record<Exclude<Kind, "signature">, number> = { user: 80, wallet: 80, tag: 8 };

async function oneOperation(client: Client, kind: Kind, tag: string, signWith: string): Promise<Acknowledged> {
  switch (kind) {
    case "user": {
      const r = completed(
        await client.createUsers({
          users: [{ userName: `user ${tag}`, userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }],
        }),
      );
      return { kind, activityId: r.activity.id, userId: r.userIds[0]!, name: `user ${tag}` };
    }
    case "wallet": {
      const r = completed(await client.createWallet({ walletName: `wallet ${tag}`, accounts: [...ACCOUNTS] }));
      return { kind, activityId: r.activity.id, walletId: r.walletId, addresses: r.addresses };
    }
    case "signature": {
      const r = completed(
        await client.signRawPayload({
          signWith,
          payload: Buffer.from(tag).toString("hex"),
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_KECCAK256",
        }),
      );
      return { kind, activityId: r.activity.id, r: r.r };
    }
    case "tag": {
      const r = completed(await client.createUserTag({ userTagName: `tag ${tag}`, userIds: [] }));
      return { kind, activityId: r.activity.id, tagId: r.userTagId };
    }
  }
}

/** A sub-organization for one round, owned by the root's API key, with a wallet to sign with. */
async function roundOrganization(url: string, root: RootCredentials, round: number): Promise<{ organizationId: string; signWith: string }> {
  const created = completed(
    await sdkClient(url, root, root.organizationId).createSubOrganization({
      subOrganizationName: `round ${round}`,
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "root",
          apiKeys: [{ apiKeyName: "root", publicKey: root.apiPublicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      wallet: { walletName: "signer", accounts: [ACCOUNTS[0]] },
    }),
  );
  return { organizationId: created.subOrganizationId, signWith: created.wallet!.addresses[0]! };
}

interface Load {
  acknowledged: Acknowledged[];
  unexpected: unknown[];
  cutOff: number;
}

/** Drives one server with CLIENTS concurrent loops until `stopped` resolves (or its connection is lost); `load` fills as answers come. */
async function loadUntil(client: Client, signWith: string, stopped: Promise<void>, load: Load): Promise<Load> {
  const attempts = { user: 0, wallet: 0, tag: 0 };
  let alive = true;
  void stopped.then(() => (alive = false));
  const workers = Array.from({ length: CLIENTS }, async (_, worker) => {
    for (let n = worker; alive; n++) {
      const wanted = ROTATION[n % ROTATION.length]!;
      const kind = wanted !== "signature" && attempts[wanted]++ >= BUDGET[wanted] ? "signature" : wanted;
      try {
        load.acknowledged.push(await oneOperation(client, kind, `${worker}-${n}-${Math.random().toString(36).slice(2, 8)}`, signWith));
      } catch (error) {
        if (isConnectionLoss(error)) load.cutOff++;
        else load.unexpected.push(error);
        return;
      }
    }
  });
  await stopped;
  await Promise.all(workers);
  return load;
}

/** Once `load` is flowing (its first answer is in), waits a random while and SIGKILLs `server`. */
async function killWhileLoaded(server: ServerProcess, load: Load, killAfterMs: number): Promise<void> {
  for (let waited = 0; load.acknowledged.length === 0 && load.unexpected.length === 0 && waited < 20_000; waited += 20)
    await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, killAfterMs));
  await server.kill();
}

/** Drives the server with CLIENTS concurrent loops until it is killed; returns what was acknowledged. */
async function loadUntilKilled(server: ServerProcess, client: Client, signWith: string, killAfterMs: number): Promise<Load> {
  const load: Load = { acknowledged: [], unexpected: [], cutOff: 0 };
  return loadUntil(client, signWith, killWhileLoaded(server, load, killAfterMs), load);
}

async function expectPresentAndComplete(client: Client, organizationId: string, acks: Acknowledged[]): Promise<void> {
  for (const ack of acks) {
    const { activity } = await client.getActivity({ organizationId, activityId: ack.activityId });
    expect(activity.status, `${ack.kind} activity ${ack.activityId}`).toBe("ACTIVITY_STATUS_COMPLETED");
    if (ack.kind === "user") {
      expect((await client.getUser({ userId: ack.userId })).user.userName).toBe(ack.name);
    } else if (ack.kind === "wallet") {
      const { accounts } = await client.getWalletAccounts({ walletId: ack.walletId });
      expect(accounts.map((a) => a.address).sort()).toEqual([...ack.addresses].sort());
    } else if (ack.kind === "signature") {
      expect(activity.result.signRawPayloadResult?.r).toBe(ack.r);
    } else {
      const { userTags } = await client.listUserTags({});
      expect(userTags.map((t) => t.tagId)).toContain(ack.tagId);
    }
  }
}

/** Opens the store as a fresh start would (migrations included) and looks for half-applied work. */
async function expectNothingHalfApplied(store: StoreOptions, acknowledgedCount: number): Promise<void> {
  const db = await openStore(store);
  try {
    const count = async (sql: string) => Number((await db.query<{ n: number }>(sql))[0]!.n);
    expect(await count("SELECT count(*)::int AS n FROM activities WHERE status = 'ACTIVITY_STATUS_PENDING'"), "PENDING leftovers").toBe(0);
    expect(
      await count("SELECT count(*)::int AS n FROM wallets w WHERE NOT EXISTS (SELECT 1 FROM wallet_accounts a WHERE a.wallet_id = w.id)"),
      "wallets without accounts",
    ).toBe(0);
    expect(
      await count(`SELECT count(*)::int AS n FROM activities a WHERE a.type = 'ACTIVITY_TYPE_CREATE_WALLET' AND a.status = 'ACTIVITY_STATUS_COMPLETED'
                   AND NOT EXISTS (SELECT 1 FROM wallets w WHERE w.id = a.result->'createWalletResult'->>'walletId')`),
      "completed create_wallet without its wallet",
    ).toBe(0);
    expect(
      await count(`SELECT count(*)::int AS n FROM activities a, jsonb_array_elements_text(a.result->'createUsersResult'->'userIds') AS u(id)
                   WHERE a.status = 'ACTIVITY_STATUS_COMPLETED' AND NOT EXISTS (SELECT 1 FROM users x WHERE x.id = u.id)`),
      "completed create_users without its user",
    ).toBe(0);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM activities a WHERE a.status = 'ACTIVITY_STATUS_COMPLETED' AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.activity_id = a.id)`,
      ),
      "completed activities without their vote",
    ).toBe(0);
    // Objects without the activity that made them: the handler's writes and the activity row share one transaction.
    expect(await count("SELECT count(*)::int AS n FROM wallets"), "wallets vs activities").toBe(
      await count(`SELECT count(*)::int AS n FROM activities WHERE status = 'ACTIVITY_STATUS_COMPLETED'
                   AND (type = 'ACTIVITY_TYPE_CREATE_WALLET' OR jsonb_path_exists(result, '$.*.wallet.walletId'))`),
    );
    expect(await count("SELECT count(*)::int AS n FROM activities WHERE status = 'ACTIVITY_STATUS_COMPLETED'")).toBeGreaterThanOrEqual(
      acknowledgedCount,
    );
  } finally {
    await db.close();
  }
}

async function crashLoop(env: NodeJS.ProcessEnv, store: StoreOptions): Promise<{ kills: number; acknowledged: number; cutOff: number }> {
  const root = initRoot(env);
  let server = await start(env);
  let acknowledged = 0;
  let kills = 0;
  let cutOff = 0;
  try {
    for (let round = 0; round < KILLS; round++) {
      const { organizationId, signWith } = await roundOrganization(server.url, root, round);
      const client = sdkClient(server.url, root, organizationId);
      const {
        acknowledged: acks,
        unexpected,
        cutOff: lost,
      } = await loadUntilKilled(server, client, signWith, Math.floor(Math.random() * 1500));
      kills++;
      cutOff += lost;
      if (process.env.STRONGROOM_CRASH_TRACE) process.stderr.write(`[crash] round ${round}: ${acks.length} acknowledged, restarting\n`);
      expect(unexpected.map(String), `round ${round}: answers other than success`).toEqual([]);
      const restarting = Date.now();
      server = await start(env);
      if (process.env.STRONGROOM_CRASH_TRACE) process.stderr.write(`[crash] round ${round}: restarted in ${Date.now() - restarting} ms\n`);
      await expectPresentAndComplete(sdkClient(server.url, root, organizationId), organizationId, acks);
      // The round's sub-organization and its signing wallet count too.
      acknowledged += acks.length + 1;
    }
  } finally {
    await server.kill();
  }
  await expectNothingHalfApplied(store, acknowledged);
  return { kills, acknowledged, cutOff };
}

/**
 * Two processes on one PostgreSQL, both under load; each round one of them (in turn) is killed. What the killed one
 * acknowledged is read back through the survivor before the killed one is started again, and the survivor never
 * answers with anything but success.
 */
async function twoProcessCrashLoop(
  env: NodeJS.ProcessEnv,
  store: StoreOptions,
): Promise<{ kills: number; acknowledged: number; cutOff: number }> {
  const root = initRoot(env);
  const servers = [await start(env), await start(env)];
  let acknowledged = 0;
  let cutOff = 0;
  try {
    for (let round = 0; round < KILLS; round++) {
      const victim = round % 2;
      const survivor = 1 - victim;
      const organizations = [
        await roundOrganization(servers[0]!.url, root, 2 * round),
        await roundOrganization(servers[1]!.url, root, 2 * round + 1),
      ];
      const clients = servers.map((server, i) => sdkClient(server.url, root, organizations[i]!.organizationId));
      const loads: Load[] = [0, 1].map(() => ({ acknowledged: [], unexpected: [], cutOff: 0 }));
      const killed = killWhileLoaded(servers[victim]!, loads[victim]!, Math.floor(Math.random() * 1500));
      await Promise.all([0, 1].map((i) => loadUntil(clients[i]!, organizations[i]!.signWith, killed, loads[i]!)));
      cutOff += loads[victim]!.cutOff;
      if (process.env.STRONGROOM_CRASH_TRACE)
        process.stderr.write(
          `[crash] round ${round}: ${loads[victim]!.acknowledged.length} + ${loads[survivor]!.acknowledged.length} acknowledged\n`,
        );
      for (const i of [0, 1])
        expect(loads[i]!.unexpected.map(String), `round ${round}, process ${i}: answers other than success`).toEqual([]);
      expect(loads[survivor]!.cutOff, `round ${round}: the surviving process cut requests off`).toBe(0);
      // Everything the killed process acknowledged is there, seen through the survivor, before the restart.
      const victimOrganization = organizations[victim]!.organizationId;
      await expectPresentAndComplete(
        sdkClient(servers[survivor]!.url, root, victimOrganization),
        victimOrganization,
        loads[victim]!.acknowledged,
      );
      servers[victim] = await start(env);
      for (const i of [0, 1]) {
        const organizationId = organizations[i]!.organizationId;
        await expectPresentAndComplete(sdkClient(servers[victim]!.url, root, organizationId), organizationId, loads[i]!.acknowledged);
        acknowledged += loads[i]!.acknowledged.length + 1;
      }
    }
  } finally {
    for (const server of servers) await server.kill();
  }
  await expectNothingHalfApplied(store, acknowledged);
  return { kills: KILLS, acknowledged, cutOff };
}

describe("SIGKILL under load", () => {
  it(
    `embedded PGlite in a data directory survives ${KILLS} kills with nothing lost or half-applied`,
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "strongroom-sigkill-"));
      try {
        const env = embeddedEnv(dataDir);
        const { kills, acknowledged, cutOff } = await crashLoop(env, { dataDir });
        process.stdout.write(
          `[crash] PGlite: ${kills} kills survived, ${acknowledged} acknowledged activities all present, ${cutOff} requests cut off in flight\n`,
        );
        expect(kills).toBe(KILLS);
        expect(acknowledged).toBeGreaterThanOrEqual(KILLS);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );

  it.skipIf(!process.env.DATABASE_URL)(
    `PostgreSQL survives ${KILLS} kills with nothing lost or half-applied (needs DATABASE_URL)`,
    async () => {
      const database = await sharedPostgres();
      try {
        const { kills, acknowledged, cutOff } = await crashLoop(database.env, { databaseUrl: database.url, dataDir: "memory://" });
        process.stdout.write(
          `[crash] PostgreSQL: ${kills} kills survived, ${acknowledged} acknowledged activities all present, ${cutOff} requests cut off in flight\n`,
        );
        expect(kills).toBe(KILLS);
        expect(acknowledged).toBeGreaterThanOrEqual(KILLS);
      } finally {
        await database.drop();
      }
    },
    TIMEOUT_MS,
  );

  it.skipIf(!process.env.DATABASE_URL)(
    `two processes on one PostgreSQL: ${KILLS} kills, one process at a time, the other serving on (needs DATABASE_URL)`,
    async () => {
      const database = await sharedPostgres();
      try {
        const { kills, acknowledged, cutOff } = await twoProcessCrashLoop(database.env, {
          databaseUrl: database.url,
          dataDir: "memory://",
        });
        process.stdout.write(
          `[crash] PostgreSQL, two processes: ${kills} kills survived, ${acknowledged} acknowledged activities all present, ${cutOff} requests cut off in flight\n`,
        );
        expect(kills).toBe(KILLS);
        expect(acknowledged).toBeGreaterThanOrEqual(KILLS);
      } finally {
        await database.drop();
      }
    },
    TIMEOUT_MS,
  );
});
