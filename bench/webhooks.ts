/**
 * Webhooks: what the outbox write adds to an activity, and how fast events reach a local receiver.
 *
 *   npm run bench:webhooks
 */
import { createServer } from "node:http";
import { loadAverageSampler, machine, percentile, sequentialLatencies, startBuiltServerProcess, store, writeResult } from "./support.js";

async function main() {
  const load = loadAverageSampler();
  const strongroom = await startBuiltServerProcess({ STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1", STRONGROOM_WEBHOOK_POLL_MS: "50" });
  let delivered = 0;
  let lastDelivery = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      delivered++;
      lastDelivery = performance.now();
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  try {
    const client = strongroom.client();
    let n = 0;
    const rename = () => client.updateUserName({ userId: strongroom.root.userId, userName: `Root ${n++}` });
    const without = await sequentialLatencies(500, rename);
    await client.createWebhookEndpoint({ url: receiverUrl, name: "bench", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
    const withEndpoint = await sequentialLatencies(500, rename);

    // End to end: 1,000 activities over 16 connections, each producing one delivery.
    await new Promise((r) => setTimeout(r, 1000));
    const before = delivered;
    const total = 1000;
    let issued = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (issued++ < total) await rename();
      }),
    );
    const committed = performance.now();
    while (delivered - before < total) await new Promise((r) => setTimeout(r, 10));
    const report = {
      machine: machine(),
      store: store(),
      activityP50Ms: { noEndpoint: +percentile(without, 50).toFixed(2), oneEndpoint: +percentile(withEndpoint, 50).toFixed(2) },
      activityP99Ms: { noEndpoint: +percentile(without, 99).toFixed(2), oneEndpoint: +percentile(withEndpoint, 99).toFixed(2) },
      deliveriesPerSecond: Math.round(total / ((lastDelivery - start) / 1000)),
      activitiesPerSecond: Math.round(total / ((committed - start) / 1000)),
      lastDeliveryAfterLastCommitMs: Math.round(lastDelivery - committed),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    writeResult({
      benchmark: `webhooks-${store() === "PostgreSQL" ? "postgres" : "pglite"}`,
      loadAverage: load.finish(),
      limits: { activityP50MsWithoutEndpoint: report.activityP50Ms.noEndpoint },
      figures: report,
      // The same rename without an endpoint is the limit of the one whose activity writes the outbox (same run).
      ratios: {
        "rename p50: no endpoint ÷ one endpoint": +(report.activityP50Ms.noEndpoint / report.activityP50Ms.oneEndpoint).toFixed(3),
      },
    });
  } finally {
    receiver.close();
    await strongroom.stop();
  }
}

await main();
