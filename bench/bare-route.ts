/**
 * The limits the load benchmark measures Strongroom against: Fastify in a process of its own, the body kept
 * as raw bytes, the API-key stamp parsed and verified over them with Strongroom's own stamp code, and a
 * small JSON answer — no database, no policy, nothing else. Given a store, `/public/v1/submit/<op>` also
 * runs one transaction inserting one row (the body's fingerprint and the body) through Strongroom's own
 * store adapter with its own settings: the least any activity must cost on that store.
 *
 *   node --import tsx bench/bare-route.ts <port> [pglite:<data dir> | postgres:<url>]
 */
import Fastify from "fastify";
import { createHash, randomUUID } from "node:crypto";
import { parseStamp, verifyApiKeySignature } from "../src/auth/stamp.js";
import type { Database } from "../src/store/database.js";
import { openPglite } from "../src/store/pglite.js";
import { openPostgres } from "../src/store/postgres.js";

const port = Number(process.argv[2] ?? 0);
const store = process.argv[3];
const db: Database | undefined = store?.startsWith("pglite:")
  ? await openPglite(store.slice("pglite:".length))
  : store?.startsWith("postgres:")
    ? await openPostgres(store.slice("postgres:".length))
    : undefined;
await db?.exec(
  "CREATE TABLE IF NOT EXISTS bench_limit_rows (id uuid PRIMARY KEY, fingerprint text NOT NULL UNIQUE, body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
);

const app = Fastify({ logger: { level: "warn" } });
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

app.post("/public/v1/:kind/:operation", async (request, reply) => {
  const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const stamp = parseStamp(request.headers);
  if (stamp.kind !== "api-key" || !verifyApiKeySignature(stamp, rawBody)) return reply.status(401).send({ code: 16, message: "bad stamp" });
  const body = JSON.parse(rawBody.toString("utf8")) as { organizationId: string };
  if ((request.params as { kind: string }).kind === "submit") {
    if (!db) return reply.status(404).send({ code: 5, message: "no store" });
    const fingerprint = createHash("sha256").update(rawBody).digest("hex");
    await db.transaction((tx) =>
      tx.query("INSERT INTO bench_limit_rows (id, fingerprint, body) VALUES ($1, $2, $3)", [
        randomUUID(),
        fingerprint,
        rawBody.toString("utf8"),
      ]),
    );
  }
  return reply.send({ organizationId: body.organizationId, publicKey: stamp.publicKey });
});
app.get("/health", async () => ({ status: "ok" }));

await app.listen({ host: "127.0.0.1", port });
