import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./processes.js";

/**
 * PostgreSQL clusters a test creates, starts, stops and removes itself with the installed binaries
 * (initdb, pg_ctl, pg_basebackup), each on a port of its own, so stopping one never touches the PostgreSQL
 * other tests share. Run as the `postgres` user when this process is root (initdb refuses root).
 */
const binDir = (() => {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, "bin")).find((dir) => existsSync(join(dir, "pg_ctl")) && existsSync(join(dir, "initdb")));
})();

const asRoot = process.getuid?.() === 0;
const postgresUser = (() => {
  if (!asRoot) return undefined;
  const uid = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  return uid.status === 0 ? { uid: Number(uid.stdout), gid: Number(gid.stdout) } : undefined;
})();

/** Whether this machine can make throwaway clusters: the binaries, and a non-root user to run them when root. */
export const throwawayPostgresAvailable = binDir !== undefined && (!asRoot || postgresUser !== undefined);

function run(tool: string, args: string[]): void {
  const command = asRoot ? "runuser" : join(binDir!, tool);
  const argv = asRoot ? ["-u", "postgres", "--", join(binDir!, tool), ...args] : args;
  const result = spawnSync(command, argv, { encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0) throw new Error(`${tool} ${args.join(" ")} failed: ${result.stderr || result.stdout}`);
}

export interface ThrowawayCluster {
  port: number;
  dataDir: string;
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres (trust authentication: the password is never checked). */
  url: string;
  start(): void;
  /** pg_ctl stop: `fast` ends sessions, `immediate` is a crash. */
  stop(mode?: "fast" | "immediate"): void;
  promote(): void;
  /** A streaming standby of this cluster (pg_basebackup), started on a port of its own. */
  standby(): Promise<ThrowawayCluster>;
  remove(): void;
}

async function cluster(root: string, dataDir: string, settings: string[]): Promise<ThrowawayCluster> {
  const port = await freePort();
  const log = join(root, `${port}.log`);
  const options = [`-p ${port}`, `-k ${root}`, "-c listen_addresses=127.0.0.1", ...settings.map((s) => `-c ${s}`)].join(" ");
  let running = false;
  const self: ThrowawayCluster = {
    port,
    dataDir,
    url: `postgres://postgres:pw-never-logged@127.0.0.1:${port}/postgres`,
    start() {
      run("pg_ctl", ["-D", dataDir, "-o", options, "-l", log, "-w", "-t", "120", "start"]);
      running = true;
    },
    stop(mode = "fast") {
      if (!running) return;
      run("pg_ctl", ["-D", dataDir, "-m", mode, "-w", "-t", "120", "stop"]);
      running = false;
    },
    promote() {
      run("pg_ctl", ["-D", dataDir, "-w", "-t", "120", "promote"]);
    },
    async standby() {
      const standbyDir = join(root, `standby-${Date.now()}`);
      run("pg_basebackup", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-D", standbyDir, "-R", "-X", "stream", "-c", "fast"]);
      const replica = await cluster(root, standbyDir, settings);
      replica.start();
      return replica;
    },
    remove() {
      try {
        self.stop("immediate");
      } catch {
        // already stopped
      }
    },
  };
  return self;
}

/**
 * A new cluster, started. `settings` are postgresql.conf settings (`name=value`); initdb's trust
 * authentication already lets 127.0.0.1 connect and replicate.
 */
export async function throwawayPostgres(settings: string[] = []): Promise<ThrowawayCluster & { removeAll(): void }> {
  const root = mkdtempSync(join(tmpdir(), "strongroom-pg-"));
  if (postgresUser) chownSync(root, postgresUser.uid, postgresUser.gid);
  const dataDir = join(root, "primary");
  run("initdb", ["-D", dataDir, "-U", "postgres", "-A", "trust", "--no-sync", "--no-instructions"]);
  const primary = await cluster(root, dataDir, ["fsync=off", "full_page_writes=off", ...settings]);
  primary.start();
  const clusters: ThrowawayCluster[] = [primary];
  const standby = primary.standby.bind(primary);
  primary.standby = async () => {
    const replica = await standby();
    clusters.push(replica);
    return replica;
  };
  return Object.assign(primary, {
    removeAll() {
      for (const c of clusters) c.remove();
      rmSync(root, { recursive: true, force: true });
    },
  });
}
