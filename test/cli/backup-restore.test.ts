import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { clientOf, organizationWithWallet, serve, signature, strongroom } from "./operator.js";

describe("strongroom backup and restore (embedded store)", { timeout: 600_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), "strongroom-backup-"));
  const dataDir = join(work, "data");
  const backup = join(work, "store.tgz");
  const savedKey = join(work, "saved-master.key");
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("round-trips: an organization and its wallet, backed up, wiped and restored, still sign", async () => {
    const server = await serve(dataDir);
    let before;
    try {
      before = await organizationWithWallet(server);
      // While a server holds the data directory, a backup is refused (it could catch the files mid-write).
      const busy = strongroom(["backup", backup, "--data-dir", dataDir]);
      expect(busy.status).not.toBe(0);
      expect(busy.stderr).toContain("in use");
    } finally {
      await server.close();
    }

    const made = strongroom(["backup", backup, "--data-dir", dataDir, "--key-out", savedKey]);
    expect(made.status, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ backup, keyFile: savedKey });
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(statSync(savedKey).mode & 0o777).toBe(0o600);
    expect(readFileSync(savedKey, "utf8")).toBe(readFileSync(join(dataDir, "master.key"), "utf8"));
    // The backup holds the store, never the key.
    expect(readFileSync(backup).includes(readFileSync(savedKey, "utf8").trim())).toBe(false);
    // A second backup never overwrites the first.
    expect(strongroom(["backup", backup, "--data-dir", dataDir]).status).not.toBe(0);

    rmSync(dataDir, { recursive: true, force: true });
    const withoutKey = strongroom(["restore", backup, "--data-dir", dataDir]);
    expect(withoutKey.status).not.toBe(0);
    expect(withoutKey.stderr).toContain("--key-file");
    expect(existsSync(join(dataDir, "pgdata"))).toBe(false);

    const restored = strongroom(["restore", backup, "--data-dir", dataDir, "--key-file", savedKey]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(statSync(join(dataDir, "master.key")).mode & 0o777).toBe(0o600);

    const again = await serve(dataDir);
    try {
      const client = clientOf(again, before.root);
      expect((await client.getWallets({})).wallets.map((w) => w.walletId)).toEqual([before.walletId]);
      expect(await signature(client, before.address)).toBe(before.signature);
    } finally {
      await again.close();
    }

    // Restoring over a store is refused without --force.
    const over = strongroom(["restore", backup, "--data-dir", dataDir]);
    expect(over.status).not.toBe(0);
    expect(over.stderr).toContain("--force");
  });

  it("refuses a restore whose key does not open the backup, leaving the data directory as it was", () => {
    const other = join(work, "other");
    const wrongKey = join(work, "wrong.key");
    writeFileSync(wrongKey, "11".repeat(32) + "\n", { mode: 0o600 });
    const refused = strongroom(["restore", backup, "--data-dir", other, "--key-file", wrongKey]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("do not open with this master key");
    expect(existsSync(join(other, "pgdata"))).toBe(false);
    expect(existsSync(join(other, "master.key"))).toBe(false);
  });

  it("points PostgreSQL users at pg_dump", () => {
    const run = strongroom(["backup", join(work, "pg.tgz")], {
      DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test",
      STRONGROOM_MASTER_KEY: "22".repeat(32),
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("pg_dump --schema=strongroom");
  });
});
