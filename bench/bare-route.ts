/**
 * The limits the load benchmark measures Strongroom against: Fastify in a process of its own, the body kept
 * as raw bytes, the API-key stamp parsed and verified over them with Strongroom's own stamp code, and a
 * small JSON answer — no database, no policy, nothing else. Given a store, `/public/v1/submit/<op>` also
 * runs one transaction inserting one row (the body's fingerprint and the body) through Strongroom's own
 * store adapter with its own settings: the least any activity must cost on that store.
 *
 * With `rename` after the store (a Strongroom store, holding the stamp's key and the users renamed), the submit
 * route runs instead exactly the statements a rename sends, through Strongroom's own code for each: the
 * authentication statement (which verifies the stamp), then in one transaction the handler's SAVEPOINT and
 * UPDATE and the activity's insert (activity, first vote, its evaluations, audit event) leaving with the COMMIT.
 * No policy decision, parse, fingerprint claim or answer in the API's shape: what is left is what the rename's
 * records cost the database and its client, the least a rename can cost with what it stores.
 *
 *   node --import tsx bench/bare-route.ts <port> [pglite:<data dir> | postgres:<url>] [rename]
 */
import Fastify from "fastify";
import { createHash, randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { authenticateApiKey } from "../src/auth/api-key-stamp.js";
import { parseStamp, verifyApiKeySignature } from "../src/auth/stamp.js";
import { insertNewActivity } from "../src/domains/activities/insert-new-activity.js";
import { newVote } from "../src/domains/activities/votes.js";
import { updateUserName } from "../src/domains/users/submit/update-user-name.js";
import type { ActivityContext } from "../src/operations/activity-definition.js";
import { newActivityEvent } from "../src/pipeline/steps/audit.js";
import type { ActivityRow } from "../src/records/activity.js";
import type { Services } from "../src/services.js";
import type { Database } from "../src/store/database.js";
import { openPglite } from "../src/store/pglite.js";
import { openPostgres } from "../src/store/postgres.js";

const port = Number(process.argv[2] ?? 0);
const store = process.argv[3];
const renames = process.argv[4] === "rename";
const db: Database | undefined = store?.startsWith("pglite:")
  ? await openPglite(store.slice("pglite:".length))
  : store?.startsWith("postgres:")
    ? await openPostgres(store.slice("postgres:".length))
    : undefined;
if (db && !renames)
  await db.exec(
    "CREATE TABLE IF NOT EXISTS bench_limit_rows (id uuid PRIMARY KEY, fingerprint text NOT NULL UNIQUE, body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
  );

interface RenameBody {
  type: string;
  organizationId: string;
  parameters: { userId: string; userName: string };
}

/** A rename's statements, each through the code Strongroom runs it with. */
async function rename(
  db: Database,
  stamp: Parameters<typeof authenticateApiKey>[1],
  rawBody: Buffer,
  body: RenameBody,
  clientIp: string,
): Promise<void> {
  const now = new Date();
  const { principal, organization } = await authenticateApiKey(db, stamp, rawBody, body.organizationId, now, clientIp, true, false);
  const row: ActivityRow = {
    id: uuidv7(),
    organization_id: organization.id,
    type: body.type,
    status: "ACTIVITY_STATUS_COMPLETED",
    fingerprint: `sha256:${createHash("sha256").update(rawBody).digest("hex")}`,
    intent: { updateUserNameIntent: body.parameters },
    result: { updateUserNameResult: { userId: body.parameters.userId } },
    failure: null,
    generate_app_proofs: false,
    app_proofs: [],
    created_at: now,
    updated_at: now,
  };
  const vote = await newVote(db, row.id, "VOTE_SELECTION_APPROVED", { principal, rawBody, now, onError: () => undefined });
  // The event Strongroom's audit step builds (recording on; a completed activity has no failure to HMAC).
  const auditEvent = newActivityEvent({ audit: { recording: true } } as Services, row, principal, [], clientIp);
  await db.transaction(async (tx) => {
    await tx.exec("SAVEPOINT handler");
    const context = { tx, organization, now, requesterUserId: principal.user.id, byRootQuorum: true } as unknown as ActivityContext;
    await updateUserName.execute(context, body.parameters, undefined);
    if (!(await insertNewActivity(tx, row, vote, [], auditEvent, { commit: true }))) throw new Error("the body was already submitted");
  });
}

const app = Fastify({ logger: { level: "warn" } });
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

app.post("/public/v1/:kind/:operation", async (request, reply) => {
  const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const stamp = parseStamp(request.headers);
  if (stamp.kind !== "api-key") return reply.status(401).send({ code: 16, message: "bad stamp" });
  const body = JSON.parse(rawBody.toString("utf8")) as RenameBody;
  const submits = (request.params as { kind: string }).kind === "submit";
  if (submits && db && renames) {
    await rename(db, stamp, rawBody, body, request.ip);
    return reply.send({ organizationId: body.organizationId, publicKey: stamp.publicKey });
  }
  if (!verifyApiKeySignature(stamp, rawBody)) return reply.status(401).send({ code: 16, message: "bad stamp" });
  if (submits) {
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
