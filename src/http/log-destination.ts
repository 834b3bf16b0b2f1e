import pino, { type DestinationStream } from "pino";

/** What a stalled reader of the log may leave buffered; past it, lines are dropped rather than held. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

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
  const stream = pino.destination({ fd: 1, sync: false, minLength: 0, maxLength: MAX_BUFFERED_BYTES });
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
