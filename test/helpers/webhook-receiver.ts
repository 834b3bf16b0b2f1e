import { createServer, type IncomingHttpHeaders } from "node:http";

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  /** The request's path and query: which endpoint it was sent to, when several point at one receiver. */
  path: string;
  body: Buffer;
  status: number;
}

/**
 * A real HTTP receiver on loopback. `respond` picks the status of each request (default 200), answered
 * after `delayMs`; every request is recorded with its exact body bytes, and the most requests ever in
 * flight at once to one path is kept in `maxInFlight`.
 */
export async function startWebhookReceiver(respond: (index: number) => number = () => 200, delayMs = 0) {
  const received: ReceivedDelivery[] = [];
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    const now = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, now);
    maxInFlight.set(path, Math.max(now, maxInFlight.get(path) ?? 0));
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const status = respond(received.length);
      received.push({ headers: req.headers, path, body: Buffer.concat(chunks), status });
      setTimeout(() => {
        inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
        res.writeHead(status).end();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    maxInFlight,
    /** Waits until `predicate` holds for the recorded deliveries. */
    async until(predicate: (all: ReceivedDelivery[]) => boolean, timeoutMs = 10_000): Promise<ReceivedDelivery[]> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(`webhook receiver: condition not met within ${timeoutMs} ms (${received.length} deliveries)`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
