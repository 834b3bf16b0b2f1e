import { randomUUID } from "node:crypto";
import pg from "pg";

/** One statement on the PostgreSQL server at `baseUrl`, on a connection of its own. */
async function admin(baseUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database named `<prefix>_<random>` on the server at `baseUrl` (DATABASE_URL); `drop` removes it. */
export async function freshPostgresDatabase(
  baseUrl: string,
  prefix = "strongroom_test",
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomUUID().replace(/-/g, "")}`;
  await admin(baseUrl, `CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
