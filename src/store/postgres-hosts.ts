import pg from "pg";
import { CONNECT_TIMEOUT_MS, describePostgres } from "./postgres-wait.js";

/**
 * Multi-host connection strings, as libpq takes them and `pg` does not:
 * `postgres://user:pw@host1:5432,host2:5432/db?target_session_attrs=read-write`. Each host is tried in order;
 * with `target_session_attrs=read-write` (or `primary`) only a server that is not a standby will do, so after a
 * failover the promoted standby is found by itself.
 */
export interface PostgresHosts {
  /** One single-host connection string per host, in the order given. */
  targets: string[];
  /** Whether only a read-write server (a primary) will do. */
  readWrite: boolean;
}

const READ_WRITE = new Set(["read-write", "primary"]);

export function parseHosts(connectionString: string): PostgresHosts {
  const match = /^([a-z]+:\/\/)([^@/]*@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?/i.exec(connectionString);
  if (!match) return { targets: [connectionString], readWrite: false };
  const [, scheme, userInfo = "", hostList = "", path = "", query = ""] = match;
  const params = new URLSearchParams(query);
  const attrs = params.get("target_session_attrs") ?? "any";
  if (!READ_WRITE.has(attrs) && attrs !== "any") {
    throw new Error(`DATABASE_URL: target_session_attrs=${attrs} is not supported (read-write, primary or any)`);
  }
  params.delete("target_session_attrs");
  const rest = `${path}${params.size ? `?${params.toString()}` : ""}`;
  const hosts = hostList.split(",").filter(Boolean);
  if (hosts.length <= 1 && !query.includes("target_session_attrs")) return { targets: [connectionString], readWrite: false };
  return { targets: (hosts.length ? hosts : [""]).map((host) => `${scheme}${userInfo}${host}${rest}`), readWrite: READ_WRITE.has(attrs) };
}

/** A standby answered where only a primary will do: as unavailable as a server that does not answer. */
class StandbyOnly extends Error {
  readonly code = "25006";
  constructor(target: string) {
    super(`${describePostgres(target)} is a standby (read-only)`);
  }
}

/**
 * The first host that answers (and, with `readWrite`, is no standby), with a connection to it; or the last
 * host's failure.
 */
export async function findServer(hosts: PostgresHosts): Promise<{ target: string; client: pg.Client }> {
  let failure: unknown;
  for (const target of hosts.targets) {
    const client = new pg.Client({ connectionString: target, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    client.on("error", () => undefined);
    try {
      await client.connect();
      if (hosts.readWrite) {
        const [row] = (await client.query<{ standby: boolean }>("SELECT pg_is_in_recovery() AS standby")).rows;
        if (row?.standby) throw new StandbyOnly(target);
      }
      return { target, client };
    } catch (error) {
      failure = error;
      await client.end().catch(() => undefined);
    }
  }
  throw failure;
}
