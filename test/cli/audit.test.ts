import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exportLog } from "../../src/audit/export.js";
import { verifyExportDirectory, writeExportDirectory } from "../../src/audit/export-directory.js";
import { AUDIT_TEST_ENV as AUDIT_ENV, exportTo, settled } from "../audit/helpers.js";
import { freshPostgresDatabase, organizationWithWallet, serve, strongroomAsync as strongroom } from "./operator.js";

const SETTINGS = { batch: 1000, checkpointIntervalMs: 0, leaseMs: 10_000 };

describe("strongroom audit export and verify", { timeout: 600_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), "strongroom-audit-cli-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("exports a running embedded server's log through its control socket; verify exits 0, and 1 naming a deleted entry", async () => {
    const dataDir = join(work, "data");
    const server = await serve(dataDir, AUDIT_ENV);
    try {
      await organizationWithWallet(server);
      const size = await settled(server.services.db);
      const key = server.services.audit.keys.verifierKey;

      const exported = await strongroom(["audit", "export", "--out", join(work, "first"), "--data-dir", dataDir]);
      expect(exported.status, exported.stderr).toBe(0);
      expect(JSON.parse(exported.stdout)).toMatchObject({ entries: size });
      const verified = await strongroom(["audit", "verify", join(work, "first"), "--key", key]);
      expect(verified.status, verified.stderr).toBe(0);
      expect(verified.stdout).toMatch(new RegExp(`^ok: ${size} entries, \\d+ checkpoint sizes; root [A-Za-z0-9+/]{43}=\\n$`));

      // An export never replaces a file.
      const again = writeExportDirectory(join(work, "first"), exportLog(server.services.db, server.services.audit.keys, SETTINGS));
      await expect(again).rejects.toThrow("already exists: an export never replaces a file");

      const index = Math.floor(size / 2);
      await server.services.db.query("DELETE FROM audit_entries WHERE idx = $1", [String(index)]);
      const refused = await strongroom(["audit", "verify", await exportTo(server.services), "--key", key]);
      expect(refused.status).toBe(1);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toMatch(new RegExp(`^strongroom audit verify: gap at index ${index}: [^\\n]+\\n$`));
    } finally {
      await server.close();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)("exports from PostgreSQL while a server holds the integrator's lease", async () => {
    const database = await freshPostgresDatabase(process.env.DATABASE_URL!);
    const env = { ...AUDIT_ENV, DATABASE_URL: database.url, STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex") };
    const server = await serve(join(work, "unused"), env);
    try {
      await organizationWithWallet(server);
      const size = await settled(server.services.db);
      const exported = await strongroom(["audit", "export", "--out", join(work, "postgres")], env);
      expect(exported.status, exported.stderr).toBe(0);
      expect(readFileSync(join(work, "postgres", "public-key"), "utf8").trim()).toBe(server.services.audit.keys.verifierKey);
      const verified = await verifyExportDirectory(join(work, "postgres"), { key: join(work, "postgres", "public-key") });
      expect(verified.size).toBe(size);
    } finally {
      await server.close();
      await database.drop();
    }
  });
});
