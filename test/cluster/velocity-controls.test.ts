import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initRoot, sdkClient, sharedPostgres, type RootCredentials } from "../helpers/cluster.js";
import { startServerProcess, type ServerProcess } from "../helpers/processes.js";
import { createUserWithApiKey } from "../helpers/users.js";
import { controlIntent, createControl, httpClient } from "../helpers/velocity-controls.js";

/**
 * Two `strongroom serve` processes on one PostgreSQL: a velocity control's bucket is locked in the database, so
 * requests spread over both processes still cannot pass a cap together that only some of them fit.
 */
describe.skipIf(!process.env.DATABASE_URL)("velocity controls across two processes on one PostgreSQL (needs DATABASE_URL)", () => {
  let database: Awaited<ReturnType<typeof sharedPostgres>>;
  let processes: ServerProcess[] = [];
  let root: RootCredentials;
  let sql: pg.Client;

  beforeAll(async () => {
    database = await sharedPostgres();
    root = initRoot(database.env);
    const started = await Promise.allSettled([0, 1].map(() => startServerProcess(database.env)));
    processes = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    sql = new pg.Client({ connectionString: database.sqlUrl });
    await sql.connect();
  }, 300_000);
  afterAll(async () => {
    for (const p of processes) await p.kill();
    await sql?.end();
    await database?.drop();
  });

  it("lets exactly 5 of 20 concurrent signatures through a cap that fits 5, the requests split between the processes", async () => {
    const admin = sdkClient(processes[0]!.url, root, root.organizationId);
    const { addresses } = await admin.createWallet({
      walletName: "capped",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    await createControl(
      httpClient(processes[1]!.url, root),
      root.organizationId,
      controlIntent("five", { activityExecution: {} }, { method: "COUNT", threshold: "5" }),
    );
    const agent = await createUserWithApiKey(admin, "agent");
    await admin.createPolicy({
      policyName: "agent within five",
      effect: "EFFECT_ALLOW",
      condition: "controls.five",
      consensus: `approvers.any(user, user.id == '${agent.userId}')`,
      notes: "",
    });
    const clients = processes.map((p) => sdkClient(p.url, agent.credentials, root.organizationId));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        clients[i % 2]!.signRawPayload({
          signWith: addresses[0]!,
          payload: (i + 1).toString(16).padStart(64, "0"),
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(5);
    for (const o of outcomes) if (o.status === "rejected") expect((o.reason as { code: number }).code).toBe(7);
    // An infinite window keeps its running total on the bucket row, in units of 10^-18.
    const { rows } = await sql.query<{ total: string }>("SELECT total::text AS total FROM velocity_control_buckets WHERE bucket = $1", [
      agent.userId,
    ]);
    expect(rows.map((r) => r.total)).toEqual([(5n * 10n ** 18n).toString()]);
  }, 120_000);
});
