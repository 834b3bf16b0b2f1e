import { PGlite } from "@electric-sql/pglite";
import { writeFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
const dir = "/tmp/relx-pg/pgdata";
const db = await PGlite.create(dir);
await db.exec("CREATE TABLE IF NOT EXISTS t (id int primary key, v text)");
const old = "OLDSECRET" + "x".repeat(40);
await db.exec(`INSERT INTO t VALUES (1, '${old}') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v`);
await db.exec(`UPDATE t SET v = 'NEWVALUE' WHERE id = 1`);
const d = await db.dumpDataDir("none");
writeFileSync("/tmp/relx-dump.tar", Buffer.from(await d.arrayBuffer()));
function scan(label) {
  const hits = [];
  const walk = (p) => { for (const e of readdirSync(p)) { const f = join(p, e); if (statSync(f).isDirectory()) walk(f); else if (readFileSync(f).includes(old)) hits.push(f); } };
  walk(dir); console.log(label, hits);
}
scan("before vacuum");
await db.exec("VACUUM FULL t");
await db.exec("CHECKPOINT");
scan("after vacuum full+checkpoint");
console.log((await db.query("select current_setting('wal_recycle') r, current_setting('wal_level') l, current_setting('max_wal_size') m, current_setting('min_wal_size') mi, current_setting('wal_segment_size') s")).rows);
for (let i=0;i<3;i++){ await db.query("select pg_switch_wal()"); await db.exec("CHECKPOINT"); }
scan("after switch+checkpoint x3");
await db.close();
scan("after close");
