import { createServer, type Server } from "node:http";

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** What /metrics answers: a process's registry, or the sum over the workers of `serve --workers` (src/server/cluster/). */
export interface MetricsSource {
  metrics(): Promise<string>;
  readonly contentType: string;
}

/** Serves GET /metrics (and nothing else) on a port of its own, kept apart from the public API (METRICS_PORT). */
export async function serveMetrics(source: MetricsSource, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics is served here\n");
      return;
    }
    source.metrics().then(
      (text) => response.writeHead(200, { "content-type": source.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { "content-type": "text/plain" }).end(`metrics failed: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`the metrics port ${host}:${port} is in use: choose another --metrics-port (METRICS_PORT)`)
          : error,
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${typeof address === "object" && address ? address.port : port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
