/**
 * The framework-plus-crypto limit the load benchmark measures Strongroom against: Fastify in a process
 * of its own, the body kept as raw bytes, the API-key stamp parsed and verified over them with
 * Strongroom's own stamp code, and a small JSON answer — no database, no policy, nothing else.
 *
 *   node --import tsx bench/bare-route.ts <port>
 */
import Fastify from "fastify";
import { parseStamp, verifyApiKeySignature } from "../src/auth/stamp.js";

const port = Number(process.argv[2] ?? 0);
const app = Fastify({ logger: { level: "warn" } });
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

app.post("/public/v1/query/:operation", async (request, reply) => {
  const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const stamp = parseStamp(request.headers);
  if (stamp.kind !== "api-key" || !verifyApiKeySignature(stamp, rawBody)) return reply.status(401).send({ code: 16, message: "bad stamp" });
  const body = JSON.parse(rawBody.toString("utf8")) as { organizationId: string };
  return reply.send({ organizationId: body.organizationId, publicKey: stamp.publicKey });
});
app.get("/health", async () => ({ status: "ok" }));

await app.listen({ host: "127.0.0.1", port });
