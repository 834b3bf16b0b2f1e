import { chmodSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import type { FastifyBaseLogger } from "fastify";
import type { Database } from "../store/database.js";

/** The control socket of a server running on an embedded store, in its data directory. */
export const controlSocketPath = (dataDir: string): string => join(dataDir, "control.sock");

/** A Unix socket path longer than this does not fit in sockaddr_un (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;
/** A command is one short line. */
const MAX_COMMAND_BYTES = 64;

export interface ControlSocket {
  path: string;
  close(): Promise<void>;
}

/** What the server answers first, as one JSON line; for `backup`, the archive's bytes follow. */
export type ControlAnswer = { backup: { bytes: number } } | { error: string };

/**
 * Operator commands for `strongroom` run on the same machine while the server runs (today one: `backup`, the store's
 * consistent snapshot). One command per connection, a line of text; the answer is a JSON line, then the archive.
 * Who may ask is who may open the socket: mode 0600 inside the data directory (0700), the same people who can read
 * the store's files anyway. Only an embedded store in a data directory has one.
 */
export async function serveControlSocket(dataDir: string, db: Database, log: FastifyBaseLogger): Promise<ControlSocket | undefined> {
  const snapshot = db.snapshot?.bind(db);
  if (!snapshot) return undefined;
  const path = controlSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    log.warn({ path }, "the data directory's path is too long for a control socket: `strongroom backup` needs the server stopped");
    return undefined;
  }
  // This process holds the data directory's lock: a socket file left there is a dead server's.
  rmSync(path, { force: true });
  const server: Server = createServer((connection) => {
    let received = "";
    connection.on("error", () => undefined);
    connection.on("data", (chunk: Buffer) => {
      received += chunk.toString("utf8");
      const end = received.indexOf("\n");
      if (end === -1 && received.length <= MAX_COMMAND_BYTES) return;
      connection.removeAllListeners("data");
      const command = end === -1 ? received.slice(0, MAX_COMMAND_BYTES) : received.slice(0, end).trim();
      const answer = (head: ControlAnswer, body?: Uint8Array) => {
        connection.write(JSON.stringify(head) + "\n");
        if (body) connection.end(body);
        else connection.end();
      };
      if (command !== "backup") return answer({ error: `unknown command ${JSON.stringify(command)}: this server knows "backup"` });
      const started = Date.now();
      snapshot().then(
        (archive) => {
          log.info({ bytes: archive.length, ms: Date.now() - started }, "online backup taken");
          answer({ backup: { bytes: archive.length } }, archive);
        },
        (error: unknown) => {
          log.error({ err: error }, "online backup failed");
          answer({ error: `the backup failed: ${error instanceof Error ? error.message : String(error)}` });
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          rmSync(path, { force: true });
          resolve();
        }),
      ),
  };
}
