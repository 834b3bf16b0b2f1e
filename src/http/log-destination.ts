import { createRequire } from "node:module";
import { isatty } from "node:tty";
import pino, { type DestinationStream } from "pino";

/** pino-pretty (a quarter of a second of module loading) is loaded only when a log is to be pretty. */
const prettyStream = (): typeof import("pino-pretty") => createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");

/** What a stalled reader of the log may leave buffered; past it, lines are dropped rather than held. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** What POSIX guarantees a pipe writes at once (Linux: 4096 bytes). */
const PIPE_BUF = 4096;

export interface LogDestination {
  stream: DestinationStream;
  /**
   * Writes out what is buffered, waiting at most `withinMs`, and stops writing: the process may then exit
   * without blocking on its output, whoever reads it (or nobody).
   */
  finish(withinMs: number): Promise<void>;
  /** Stops writing at once, dropping what is buffered: before an immediate exit. */
  abandon(): void;
}

/**
 * The server's log on standard output, written asynchronously. Exiting must never wait on the reader: pino
 * flushes its destination synchronously at exit, and that flush retries a failed write forever (EPIPE when the
 * reader went away, EAGAIN when it stopped reading), so a server whose parent closed its pipes after SIGTERM
 * hung in that loop, deaf to a second signal. `finish` and `abandon` end it first.
 */
export function standardOutputLog(): LogDestination {
  // Writes of whole lines, at most PIPE_BUF bytes each: the workers of `serve --workers` share one standard
  // output, and a pipe never interleaves such writes, so no line of one worker is cut by another's.
  const stream = pino.destination({ fd: 1, sync: false, minLength: 0, maxLength: MAX_BUFFERED_BYTES, maxWrite: PIPE_BUF });
  // A failed write (EPIPE: nobody reads any more) leaves nothing worth waiting for.
  let broken = false;
  stream.on("error", () => (broken = true));
  const abandon = () => {
    stream.write = () => true;
    stream.flushSync = () => undefined;
    stream.end = () => undefined;
  };
  return {
    stream,
    abandon,
    finish: (withinMs) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          abandon();
          resolve();
        };
        const timer = setTimeout(done, broken ? 0 : withinMs);
        if (broken) return;
        stream.once("close", done);
        stream.once("error", done);
        stream.write = () => true;
        stream.end();
      }),
  };
}

/** LOG_FORMAT: `json` (one JSON object a line), `pretty` (human lines), or unset: pretty on a terminal, JSON otherwise. */
export type LogFormat = "json" | "pretty" | "auto";

export function parseLogFormat(value: string | undefined): LogFormat {
  if (value === undefined || value === "") return "auto";
  if (value === "json" || value === "pretty" || value === "auto") return value;
  throw new Error(`LOG_FORMAT must be json, pretty or auto, got ${JSON.stringify(value)}`);
}

/**
 * Where a logger writes: on a terminal, pino-pretty's readable lines (time, level, message, fields) — as Fastify
 * users expect — and JSON lines everywhere else (files, pipes, log collectors), unless LOG_FORMAT says otherwise.
 */
export function logDestination(stream: DestinationStream | NodeJS.WritableStream, format: LogFormat = "auto"): DestinationStream {
  const terminal = isTerminal(stream);
  if (format === "json" || (format === "auto" && !terminal)) return stream;
  return prettyStream()({
    destination: stream,
    colorize: terminal,
    translateTime: "SYS:HH:MM:ss",
    // One line per entry, its fields after the message; the start-up line's list of migrations is noise here.
    ignore: "pid,hostname,migrationsApplied",
    singleLine: true,
    sync: true,
  });
}

/** A stream is a terminal when it says so (process.stdout) or when the descriptor it writes is one (pino.destination). */
function isTerminal(stream: DestinationStream | NodeJS.WritableStream): boolean {
  const { isTTY, fd } = stream as { isTTY?: boolean; fd?: unknown };
  return isTTY === true || (typeof fd === "number" && isatty(fd));
}
