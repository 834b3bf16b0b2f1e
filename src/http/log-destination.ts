import pretty from "pino-pretty";

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
export function logDestination(stream: NodeJS.WritableStream, format: LogFormat = "auto"): NodeJS.WritableStream {
  const terminal = (stream as NodeJS.WriteStream).isTTY === true;
  if (format === "json" || (format === "auto" && !terminal)) return stream;
  return pretty({
    destination: stream,
    colorize: terminal,
    translateTime: "SYS:HH:MM:ss",
    // One line per entry, its fields after the message; the start-up line's list of migrations is noise here.
    ignore: "pid,hostname,migrationsApplied",
    singleLine: true,
    sync: true,
  });
}
