import { createServer, type IncomingHttpHeaders } from "node:http";

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
  status: number;
}

/**
 * A real HTTP receiver on loopback. `respond` picks the status of each request (default 200);
 * every request is recorded with its exact body bytes.
 */
export async function startWebhookReceiver(respond: (index: number) => number = () => 200) {
  const received: ReceivedDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const status = respond(received.length);
      received.push({ headers: req.headers, body: Buffer.concat(chunks), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Waits until `predicate` holds for the recorded deliveries. */
    async until(predicate: (all: ReceivedDelivery[]) => boolean, timeoutMs = 10_000): Promise<ReceivedDelivery[]> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`webhook receiver: condition not met within ${timeoutMs} ms (${received.length} deliveries)`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
