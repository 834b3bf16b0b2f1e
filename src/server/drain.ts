import { Server as NetServer } from "node:net";
import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";

/**
 * How long a keep-alive connection that was idle when stopping began stays open, at most: a client that sends
 * its next request within it gets an answer (with `Connection: close`). Closing idle connections at once would
 * race clients already writing onto them, and those would see a reset rather than an answer.
 */
const IDLE_GRACE_MS = 1000;

/** How long a stopping server waits for requests in flight before it cuts what is left. */
export const DEFAULT_DRAIN_MS = 10_000;

export interface Draining {
  /** Requests whose answer is not finished. */
  inFlight(): number;
  /**
   * Stops accepting connections, answers every request read with `Connection: close`, and closes connections
   * as they fall idle; once none is left (or `drainMs` passed, when what is left is cut), closes the app.
   * `othersStopListening` (a worker of `serve --workers`) resolves once every process sharing the port has closed
   * its listener: until then answers keep their connections open (see below).
   */
  drainAndClose(drainMs: number, othersStopListening?: () => Promise<void>): Promise<void>;
}

/**
 * Makes an app drain on stop so that a client sees an answer or a refused connection, never a reset after it
 * wrote: the listening socket closes first (new connections are refused, and may be retried elsewhere);
 * requests already read, or arriving on connections already open, are answered, each answer closing its
 * connection; a connection idle when stopping began is closed once it stayed idle for a short grace.
 */
export function drainOnClose(app: FastifyInstance): Draining {
  let stopping = false;
  const answering = new Set<ServerResponse>();
  app.addHook("onRequest", async (request, reply) => {
    const response = reply.raw;
    if (stopping) response.setHeader("connection", "close");
    answering.add(response);
    response.once("close", () => answering.delete(response));
    request.raw.once("error", () => undefined);
  });

  const openConnections = () => new Promise<number>((resolve) => app.server.getConnections((error, count) => resolve(error ? 0 : count)));

  return {
    inFlight: () => answering.size,
    async drainAndClose(drainMs, othersStopListening) {
      const startedAt = Date.now();
      const deadline = startedAt + drainMs;
      if (!othersStopListening) stopping = true;
      // Connections the kernel completed but the process has not accepted yet are reset when the listener
      // closes: close it right after a poll of the event loop, which accepts every one pending (their requests
      // get answers, with Connection: close), so that only one arriving in that instant can be.
      await new Promise((resolve) => setImmediate(resolve));
      // http.Server's own close() would also cut idle keep-alive connections at once: close the listener only.
      if (app.server.listening) NetServer.prototype.close.call(app.server);
      if (othersStopListening) {
        // A worker: the port stays open while another worker listens, and node:cluster's primary resets the
        // connections it accepted but had not handed to a worker when the last one stops listening. An answer
        // with Connection: close now would send its client to reconnect into that instant; until every listener
        // is closed, answers keep their connections, and new connections are refused once it is.
        await othersStopListening();
        stopping = true;
      }
      const idleGraceEnds = Date.now() + Math.min(IDLE_GRACE_MS, Math.max(0, deadline - Date.now()));
      for (const response of answering) if (!response.headersSent) response.setHeader("connection", "close");
      while (Date.now() < deadline && (await openConnections()) > 0) {
        // Idle: no request begun on it, no answer unfinished (closeIdleConnections checks both).
        if (Date.now() >= idleGraceEnds) app.server.closeIdleConnections();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      app.server.closeAllConnections();
      await app.close();
    },
  };
}
