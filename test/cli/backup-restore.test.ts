import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ETH_ACCOUNT, clientOf, organizationWithWallet, serve, signature, strongroom, strongroomAsync } from "./operator.js";
import { findCheckpoint } from "../../src/audit/read.js";
import { verifyExportDirectory } from "../../src/audit/export-directory.js";
import { exportTo, settled } from "../audit/helpers.js";
import { splitSecret } from "../../src/crypto/keyring/shares.js";
import { ethereumWallet, sealStatus, unseal, type EthereumWallet, type RootKey } from "../helpers/sealed-server.js";

/** The member names of a gzipped tar, as the system's tar lists them. */
const membersOf = (archive: string) => spawnSync("tar", ["-tzf", archive], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);

describe("strongroom backup and restore (embedded store)", { timeout: 600_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), "strongroom-backup-"));
  const dataDir = join(work, "data");
  const backup = join(work, "store.tgz");
  const savedKey = join(work, "saved-master.key");
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("round-trips: an organization and its wallet, backed up, wiped and restored, still sign; the audit log still verifies", async () => {
    const server = await serve(dataDir, { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: "0" });
    let before;
    const keptCheckpoint = join(work, "kept-checkpoint");
    let auditKey: string;
    try {
      before = await organizationWithWallet(server);
      await settled(server.services.db);
      writeFileSync(keptCheckpoint, (await findCheckpoint(server.services.db))!.note);
      auditKey = server.services.audit.keys.verifierKey;
    } finally {
      await server.close();
    }

    const made = strongroom(["backup", backup, "--data-dir", dataDir, "--key-out", savedKey]);
    expect(made.status, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ backup, keyFile: savedKey, online: false });
    // Relative member names: unpacked where it is run, never at the filesystem's root.
    const members = membersOf(backup);
    expect(members).toContain("PG_VERSION");
    expect(members.filter((m) => m.startsWith("/"))).toEqual([]);
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(statSync(savedKey).mode & 0o777).toBe(0o600);
    expect(readFileSync(savedKey, "utf8")).toBe(readFileSync(join(dataDir, "master.key"), "utf8"));
    // The backup holds the store, never the key.
    expect(readFileSync(backup).includes(readFileSync(savedKey, "utf8").trim())).toBe(false);
    // A second backup never overwrites the first, and says so.
    const twice = strongroom(["backup", backup, "--data-dir", dataDir]);
    expect(twice.status).not.toBe(0);
    expect(twice.stderr).toContain(`${backup} already exists: a backup never replaces a file`);
    expect(twice.stderr).not.toContain("EEXIST");

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
      // The log came back with the store: the same key, and a log that extends the checkpoint kept before the backup.
      expect(again.services.audit.keys.verifierKey).toBe(auditKey);
      await verifyExportDirectory(await exportTo(again.services), { key: auditKey, checkpoint: keptCheckpoint });
    } finally {
      await again.close();
    }

    // Restoring over a store is refused without --force.
    const over = strongroom(["restore", backup, "--data-dir", dataDir]);
    expect(over.status).not.toBe(0);
    expect(over.stderr).toContain("--force");
  });

  it("backs up a running server under write load: the restored store holds every activity acknowledged before the backup", async () => {
    const liveDir = join(work, "live");
    const liveBackup = join(work, "live.tgz");
    const liveKey = join(work, "live-master.key");
    const server = await serve(liveDir);
    type Ack = { activityId: string; walletId?: string; userId?: string };
    const acks: Ack[] = [];
    const failures: unknown[] = [];
    let running = true;
    let before: Awaited<ReturnType<typeof organizationWithWallet>>;
    let ackedBeforeBackup: Ack[] = [];
    let made: Awaited<ReturnType<typeof strongroomAsync>>;
    try {
      before = await organizationWithWallet(server);
      const client = clientOf(server, before.root);
      const { userId: operator } = await client.getWhoami({});
      // Wallets and users up to well under an organization's limits (100 each), then renames: the load lasts as
      // long as the backup does, however slow the machine.
      const created = () => acks.filter((a) => a.walletId ?? a.userId).length;
      const workers = [0, 1, 2].map(async (worker) => {
        for (let n = 0; running && n < 2000; n++) {
          try {
            if (created() >= 120) {
              const renamed = await client.updateUserName({ userId: operator, userName: `Operator ${worker}-${n}` });
              acks.push({ activityId: renamed.activity.id });
            } else if ((n + worker) % 2 === 0) {
              const made = await client.createWallet({ walletName: `w ${worker}-${n}`, accounts: [ETH_ACCOUNT] });
              acks.push({ activityId: made.activity.id, walletId: made.walletId });
            } else {
              const made = await client.createUsers({
                users: [{ userName: `u ${worker}-${n}`, userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }],
              });
              acks.push({ activityId: made.activity.id, userId: made.userIds[0]! });
            }
          } catch (error) {
            failures.push(error);
            return;
          }
        }
      });
      while (acks.length < 6 && failures.length === 0) await new Promise((r) => setTimeout(r, 20)); // the load is flowing
      ackedBeforeBackup = [...acks];
      made = await strongroomAsync(["backup", liveBackup, "--data-dir", liveDir, "--key-out", liveKey]);
      const ackedDuringBackup = acks.length - ackedBeforeBackup.length;
      running = false;
      await Promise.all(workers);
      expect(failures.map(String)).toEqual([]);
      expect(made.status, made.stderr).toBe(0);
      expect(JSON.parse(made.stdout)).toMatchObject({ backup: liveBackup, online: true, keyFile: liveKey });
      // The server kept serving through the backup command: no downtime.
      expect(ackedDuringBackup).toBeGreaterThan(0);
    } finally {
      running = false;
      await server.close();
    }
    expect(membersOf(liveBackup).filter((m) => m.startsWith("/"))).toEqual([]);

    const restoredDir = join(work, "restored-live");
    const restored = strongroom(["restore", liveBackup, "--data-dir", restoredDir, "--key-file", liveKey]);
    expect(restored.status, restored.stderr).toBe(0);
    const again = await serve(restoredDir);
    try {
      const client = clientOf(again, before.root);
      for (const ack of ackedBeforeBackup) {
        const { activity } = await client.getActivity({ activityId: ack.activityId });
        expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
        if (ack.walletId) expect((await client.getWalletAccounts({ walletId: ack.walletId })).accounts).toHaveLength(1);
        if (ack.userId) expect((await client.getUser({ userId: ack.userId })).user.userId).toBe(ack.userId);
      }
      // Whatever else the snapshot caught is whole: no wallet without its account.
      for (const wallet of (await client.getWallets({})).wallets) {
        expect((await client.getWalletAccounts({ walletId: wallet.walletId })).accounts.length, wallet.walletName).toBeGreaterThan(0);
      }
      expect(await signature(client, before.address)).toBe(before.signature);
    } finally {
      await again.close();
    }
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

  it("restores a Shamir store: checked with a quorum of its key shares, then served, unsealed and signing as before", async () => {
    const shamirDir = join(work, "shamir");
    const shamirBackup = join(work, "shamir.tgz");
    const shamir = { STRONGROOM_SEAL: "shamir", STRONGROOM_DATA_DIR: shamirDir };
    const init = strongroom(["init", "--key-shares", "3", "--key-threshold", "2"], shamir);
    expect(init.status, init.stderr).toBe(0);
    const printed = JSON.parse(init.stdout) as RootKey & { keyShares: string[] };
    const shares = printed.keyShares;
    const server = await serve(shamirDir, { STRONGROOM_SEAL: "shamir" });
    let wallet: EthereumWallet;
    let signed: string;
    try {
      for (const share of shares.slice(0, 2)) await unseal(server.url, { key: share });
      wallet = await ethereumWallet(server.url, printed, "before the backup");
      signed = await wallet.sign(server.url);
    } finally {
      await server.close();
    }
    const made = strongroom(["backup", shamirBackup], shamir);
    expect(made.status, made.stderr).toBe(0);
    expect(made.stderr).toContain("opens with a quorum of the store's key shares");
    for (const share of shares) expect(readFileSync(shamirBackup).includes(share)).toBe(false);

    const restoredDir = join(work, "shamir-restored");
    const restore = (sharesFile: string) =>
      strongroom(["restore", shamirBackup, "--data-dir", restoredDir, "--unseal-shares-file", sharesFile], { STRONGROOM_SEAL: "shamir" });
    const sharesFile = (name: string, content: string[]) => {
      const path = join(work, name);
      writeFileSync(path, JSON.stringify(content), { mode: 0o600 });
      return path;
    };
    // Refused, leaving the directory empty: too few shares (the error names how many, never a share), shares of
    // another split, and the file provider configured for a Shamir backup.
    const few = restore(sharesFile("one-share.json", [shares[1]!]));
    expect(few.status).not.toBe(0);
    expect(few.stderr).toContain("holds 1 key share: the keyring needs 2 to unseal");
    for (const share of shares) expect(few.stderr + few.stdout).not.toContain(share);
    const other = await splitSecret(randomBytes(32), 3, 2);
    const foreign = restore(sharesFile("other-shares.json", other.slice(0, 2)));
    expect(foreign.status).not.toBe(0);
    expect(foreign.stderr).toContain("do not combine into the backup's root key");
    for (const share of other) expect(foreign.stderr).not.toContain(share);
    const quorum = sharesFile("quorum.json", [shares[2]!, shares[0]!]);
    const asFile = strongroom(["restore", shamirBackup, "--data-dir", restoredDir]);
    expect(asFile.status).not.toBe(0);
    expect(asFile.stderr).toContain("wrapped by the shamir seal provider, but STRONGROOM_SEAL=file");
    const withKey = strongroom(["restore", shamirBackup, "--data-dir", restoredDir, "--key-file", savedKey], { STRONGROOM_SEAL: "shamir" });
    expect(withKey.status).not.toBe(0);
    expect(withKey.stderr).toContain("a shamir store's root key is in its key shares");
    expect(existsSync(join(restoredDir, "pgdata"))).toBe(false);

    const restored = restore(quorum);
    expect(restored.status, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ restored: shamirBackup, seal: "shamir", sharesChecked: true });
    expect(existsSync(join(restoredDir, "master.key"))).toBe(false);

    const again = await serve(restoredDir, { STRONGROOM_SEAL: "shamir" });
    try {
      expect(await sealStatus(again.url)).toMatchObject({ sealed: true, t: 2, n: 3, progress: 0 });
      await unseal(again.url, { key: shares[1] });
      expect((await unseal(again.url, { key: shares[2] })).json).toMatchObject({ sealed: false });
      expect(await wallet.sign(again.url)).toBe(signed);
    } finally {
      await again.close();
    }
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
