import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keyringReport } from "../../src/crypto/keyring/keyring-report.js";
import { initRootOrganization } from "../../src/domains/organizations/init-root-organization.js";
import type { RunningServer } from "../../src/server/start.js";
import { runCli } from "../helpers/processes.js";
import { openStore } from "../../src/store/open.js";
import { initKeyringAndRoot } from "../../src/server/control-socket.js";
import { ethereumWallet, persistentStore, sealStatus, unseal } from "../helpers/sealed-server.js";

/** The environment of a CLI command on `store`: its data directory, or its PostgreSQL database. */
function cliEnvOf(store: { dataDir: string; databaseUrl: string | undefined }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STRONGROOM_DATA_DIR: store.dataDir,
    STRONGROOM_KEYRING_POLL_MS: "100",
    LOG_LEVEL: "warn",
  };
  delete env.DATABASE_URL;
  delete env.STRONGROOM_MASTER_KEY;
  return store.databaseUrl ? { ...env, DATABASE_URL: store.databaseUrl } : env;
}

/**
 * `strongroom keyring rotate` and `status` with no server running: embedded, the rotation is one transaction (a new
 * version, every value moved, the old version deleted); on PostgreSQL the command adds the version, waits out the
 * grace, moves the values itself and retires the old version. Either way the store opens afterwards as before.
 */
describe(`strongroom keyring, no server running (${process.env.DATABASE_URL ? "PostgreSQL" : "embedded"})`, () => {
  const stores: { drop(): Promise<void> }[] = [];
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const store of stores) await store.drop();
  });

  it("rotates the keyring and reports it; the store signs as before", { timeout: 120_000 }, async () => {
    const store = await persistentStore();
    stores.push(store);
    const masterKey = "6d".repeat(32);
    const first = await store.start({ STRONGROOM_MASTER_KEY: masterKey });
    servers.push(first);
    const { sign } = await ethereumWallet(first.url, await initRootOrganization(first.services, {}), "rotated offline");
    const signed = await sign(first.url);
    await first.close();
    servers.pop();

    const env = { ...cliEnvOf(store), STRONGROOM_MASTER_KEY: masterKey };
    const rotated = runCli(["keyring", "rotate"], env);
    expect(rotated.status, rotated.stderr).toBe(0);
    const rotation = JSON.parse(rotated.stdout) as Record<string, unknown>;
    if (store.databaseUrl) {
      expect(rotation).toMatchObject({ version: 2, retired: [1] });
      expect(rotation.moved).toBeGreaterThan(5);
    } else {
      expect(rotation).toMatchObject({ version: 2, purged: { warnings: [] } });
      expect((rotation.resealed as Record<string, number>)["wallets.sealed_mnemonic"]).toBe(1);
    }

    const status = runCli(["keyring", "status"], env);
    expect(status.status, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as {
      provider: string;
      versions: { version: number; values: number }[];
      valuesBeforeKeyring: number;
    };
    expect(report.provider).toBe("file");
    expect(report.valuesBeforeKeyring).toBe(0);
    expect(report.versions.map((v) => v.version)).toEqual([2]);
    expect(report.versions[0]!.values).toBeGreaterThan(5);

    // Bad input changes nothing: another master key opens no version, and the keyring stays as it was.
    const wrongKey = runCli(["keyring", "rotate"], { ...env, STRONGROOM_MASTER_KEY: "a1".repeat(32) });
    expect(wrongKey.status).not.toBe(0);
    expect(wrongKey.stderr).toContain("could not be opened with the master key");
    const db = await openStore({ dataDir: store.dataDir, ...(store.databaseUrl ? { databaseUrl: store.databaseUrl } : {}) });
    try {
      expect(JSON.parse(JSON.stringify(await keyringReport(db)))).toEqual(report);
    } finally {
      await db.close();
    }

    const second = await store.start({ STRONGROOM_MASTER_KEY: masterKey });
    servers.push(second);
    expect(await sign(second.url)).toBe(signed);
  });

  it(
    "STRONGROOM_SEAL=shamir: rotates with --unseal-shares-file, and refuses a file below the threshold without echoing a share",
    { timeout: 180_000 },
    async () => {
      const store = await persistentStore();
      stores.push(store);
      const shamir = { STRONGROOM_SEAL: "shamir" };
      const first = await store.start(shamir);
      servers.push(first);
      const root = await initKeyringAndRoot(first.services, { keyring: { keyShares: { shares: 3, threshold: 2 } } });
      const shares = root.keyShares!;
      const { sign } = await ethereumWallet(first.url, root, "rotated with shares");
      const signed = await sign(first.url);
      await first.close();
      servers.pop();

      const env = { ...cliEnvOf(store), ...shamir };
      const sharesFile = (name: string, content: unknown) => {
        const path = join(store.dataDir, name);
        writeFileSync(path, JSON.stringify(content), { mode: 0o600 });
        return path;
      };
      const few = runCli(["keyring", "rotate", "--unseal-shares-file", sharesFile("one-share.json", [shares[2]!])], env);
      expect(few.status).not.toBe(0);
      expect(few.stderr).toContain("holds 1 key share: the keyring needs 2 to unseal");
      for (const share of shares) expect(few.stderr + few.stdout).not.toContain(share);
      const none = runCli(["keyring", "rotate"], env);
      expect(none.status).not.toBe(0);
      expect(none.stderr).toContain("--unseal-shares-file");
      const unrotated = JSON.parse(runCli(["keyring", "status"], env).stdout) as { provider: string; versions: { version: number }[] };
      expect(unrotated.provider).toBe("shamir");
      expect(unrotated.versions.map((v) => v.version)).toEqual([1]);

      // init's own output is a shares file too (its keyShares): all three given, two needed.
      const rotated = runCli(["keyring", "rotate", "--unseal-shares-file", sharesFile("init.json", { keyShares: shares })], env);
      expect(rotated.status, rotated.stderr).toBe(0);
      expect(JSON.parse(rotated.stdout)).toMatchObject(store.databaseUrl ? { version: 2, retired: [1] } : { version: 2 });
      const report = JSON.parse(runCli(["keyring", "status"], env).stdout) as { versions: { version: number; wrappedBy: string }[] };
      expect(report.versions).toMatchObject([{ version: 2, wrappedBy: "shamir" }]);

      const second = await store.start(shamir);
      servers.push(second);
      expect(await sealStatus(second.url)).toMatchObject({ sealed: true, t: 2, n: 3 });
      await unseal(second.url, { key: shares[0] });
      expect((await unseal(second.url, { key: shares[1] })).json).toMatchObject({ sealed: false, keyVersion: 2 });
      expect(await sign(second.url)).toBe(signed);
    },
  );
});
