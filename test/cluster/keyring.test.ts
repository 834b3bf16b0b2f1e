import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { initRoot, sharedPostgres } from "../helpers/cluster.js";
import { runCli, startServerProcess, type ServerProcess } from "../helpers/processes.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { ethereumWallet, eventually, sealStatus } from "../helpers/sealed-server.js";
import { keyAttributes, SOFTHSM_MODULE, softhsmDirectory, softhsmMissing, TOKEN_PIN } from "../helpers/softhsm.js";

/**
 * Two `strongroom serve` processes on one PostgreSQL, the keyring under the file provider (STRONGROOM_MASTER_KEY): a
 * rotation made by the CLI while both serve is picked up by both and completed (values moved, version 1 retired); a
 * seal requested through one process seals both; a restarted process unseals.
 */
describe.skipIf(!process.env.DATABASE_URL)("the keyring in a cluster of two processes (needs DATABASE_URL)", { timeout: 300_000 }, () => {
  let database: Awaited<ReturnType<typeof sharedPostgres>> | undefined;
  const processes: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of processes) await p.kill();
    await database?.drop();
  });

  it("rotates while both serve, seals both on demand, and unseals a restarted process", async () => {
    database = await sharedPostgres({ STRONGROOM_KEYRING_POLL_MS: "200" });
    const env = database.env;
    const root = initRoot(env);
    const started = await Promise.all([0, 1].map(() => startServerProcess(env)));
    processes.push(...started);
    for (const p of processes) expect(await sealStatus(p.url)).toMatchObject({ type: "file", sealed: false, keyVersion: 1 });
    const wallet = await ethereumWallet(processes[0]!.url, root, "cluster");
    const sign = (i: number) => wallet.sign(processes[i]!.url);
    const signed = await sign(0);
    expect(await sign(1)).toBe(signed);

    // Rotation by the CLI while both serve: both pick version 2 up, the values move, version 1 is retired.
    const rotation = runCli(["keyring", "rotate", "--background"], env);
    expect(rotation.status, rotation.stderr).toBe(0);
    expect(JSON.parse(rotation.stdout)).toEqual({ version: 2, background: true });
    const sql = new pg.Client({ connectionString: database.sqlUrl });
    await sql.connect();
    try {
      await eventually(
        async () => (await sql.query("SELECT version FROM keyring")).rows.map((r: { version: number }) => r.version).join() === "2",
        "the servers moved every value to version 2 and retired version 1",
        120_000,
      );
      const left = await sql.query("SELECT count(*)::int AS n FROM wallets WHERE sealed_mnemonic NOT LIKE 'v2:2:%'");
      expect(left.rows[0].n).toBe(0);
    } finally {
      await sql.end();
    }
    for (const i of [0, 1]) expect(await sign(i)).toBe(signed);
    await eventually(async () => (await sealStatus(processes[1]!.url)).keyVersion === 2, "process 1 seals under version 2");

    // Sealing on demand through process 0 seals process 1 too.
    const body = activityBody("ACTIVITY_TYPE_SEAL_SERVER", root.organizationId, {});
    const sealed = await post(`${processes[0]!.url}/strongroom/v1/submit/seal_server`, body, {
      "X-Stamp": p256Stamp(body, root.apiPublicKey, root.apiPrivateKey),
    });
    expect(sealed.status, JSON.stringify(sealed.json)).toBe(200);
    for (const p of processes) await eventually(async () => (await sealStatus(p.url)).sealed, `${p.url} sealed`);
    expect((await fetch(`${processes[1]!.url}/public/v1/discovery/keys`)).status).toBe(503);

    // A restarted process unseals (the file provider reads its key at start); the other stays sealed.
    await processes[0]!.kill();
    processes[0] = await startServerProcess(env);
    expect(await sealStatus(processes[0].url)).toMatchObject({ sealed: false, keyVersion: 2 });
    expect(await sign(0)).toBe(signed);
    expect(await sealStatus(processes[1]!.url)).toMatchObject({ sealed: true });
  });
});

if (process.env.DATABASE_URL && softhsmMissing) console.warn(`cluster/keyring.test.ts: the pkcs11 case is skipped: ${softhsmMissing}`);

/**
 * Two `strongroom serve` processes started together on an empty PostgreSQL store with STRONGROOM_SEAL=pkcs11: one
 * creates the keyring and the root key in the token (the other waits for it, and does not create a second key), and
 * both auto-unseal from the same token.
 */
describe.skipIf(!process.env.DATABASE_URL || softhsmMissing)(
  "the keyring under a PKCS#11 token in a cluster of two processes (needs DATABASE_URL and SoftHSM2)",
  { timeout: 300_000 },
  () => {
    const hsm = softhsmMissing ? undefined : softhsmDirectory();
    let database: Awaited<ReturnType<typeof sharedPostgres>> | undefined;
    const processes: ServerProcess[] = [];
    afterAll(async () => {
      for (const p of processes) await p.kill();
      await database?.drop();
      hsm?.drop();
    });

    it("creates one root key in the token for both, and both unseal from it and sign alike", async () => {
      hsm!.newToken("cluster");
      database = await sharedPostgres({
        STRONGROOM_SEAL: "pkcs11",
        STRONGROOM_PKCS11_MODULE: SOFTHSM_MODULE,
        STRONGROOM_PKCS11_TOKEN_LABEL: "cluster",
        STRONGROOM_PKCS11_PIN: TOKEN_PIN,
      });
      const env = database.env;
      processes.push(...(await Promise.all([0, 1].map(() => startServerProcess(env)))));
      for (const p of processes) expect(await sealStatus(p.url)).toMatchObject({ type: "pkcs11", sealed: false, keyVersion: 1 });
      expect(keyAttributes("cluster", "strongroom-root")).toMatchObject({ keys: 1, sensitive: true, extractable: false });

      const wallet = await ethereumWallet(processes[0]!.url, initRoot(env), "cluster under the token");
      expect(await wallet.sign(processes[1]!.url)).toBe(await wallet.sign(processes[0]!.url));
    });
  },
);
