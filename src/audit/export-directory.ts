import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync, type WriteStream } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { parseVerifierKey } from "../crypto/signed-note.js";
import { EXPORT_FILES, type ExportRecord } from "./export.js";
import { LogProblem, verifyLog, type VerifiedLog } from "./verify.js";

/**
 * An export directory, as `strongroom audit export` writes it and `strongroom audit verify` reads it:
 * entries.ndjson (each entry's exact bytes, one a line, in log order), checkpoints.ndjson (every signed
 * checkpoint, each note as a JSON string, smallest tree first), checkpoint (the latest note, to keep elsewhere)
 * and public-key (the checkpoint key, a signed-note verifier key).
 */

/** Writes a line to a file stream, waiting when its buffer is full. */
async function writeLine(stream: WriteStream, line: string): Promise<void> {
  if (!stream.write(`${line}\n`)) await once(stream, "drain");
}

async function closeStream(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, "finish");
}

/** Writes an export's records to `dir`: entries.ndjson, checkpoints.ndjson, checkpoint (the latest) and public-key. */
export async function writeExportDirectory(
  dir: string,
  records: AsyncIterable<ExportRecord>,
): Promise<{ entries: number; checkpoints: number }> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const file of Object.values(EXPORT_FILES))
    if (existsSync(join(dir, file)))
      throw new Error(`${join(dir, file)} already exists: an export never replaces a file; give a new directory`);
  const entries = createWriteStream(join(dir, EXPORT_FILES.entries), { flags: "wx", mode: 0o600 });
  const checkpoints = createWriteStream(join(dir, EXPORT_FILES.checkpoints), { flags: "wx", mode: 0o600 });
  let latest: string | undefined;
  const counts = { entries: 0, checkpoints: 0 };
  try {
    for await (const record of records) {
      if (record.kind === "key") writeFileSync(join(dir, EXPORT_FILES.key), `${record.text}\n`, { flag: "wx", mode: 0o644 });
      else if (record.kind === "checkpoint") {
        await writeLine(checkpoints, JSON.stringify(record.text));
        latest = record.text;
        counts.checkpoints++;
      } else {
        await writeLine(entries, record.text);
        counts.entries++;
      }
    }
  } finally {
    await Promise.all([closeStream(entries), closeStream(checkpoints)]);
  }
  if (latest !== undefined) writeFileSync(join(dir, EXPORT_FILES.latest), latest, { flag: "wx", mode: 0o644 });
  return counts;
}

/** Lines of a file split on "\n" only (a "\r" left in an entry is part of it, and changes its hash). */
async function* linesOf(path: string): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of createReadStream(path, { encoding: "utf8" }) as AsyncIterable<string>) {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
    }
  }
  if (buffered) yield buffered;
}

/** --key: a verifier key itself, or a file holding one. */
function readKey(option: string | undefined, dir: string): { text: string; fromExport: boolean } {
  if (option === undefined) return { text: readFileSync(join(dir, EXPORT_FILES.key), "utf8"), fromExport: true };
  return { text: option.includes("+") && !existsSync(option) ? option : readFileSync(option, "utf8"), fromExport: false };
}

/**
 * Verifies an export directory (verify.ts says what is checked); `key` is the checkpoint key kept elsewhere (the
 * verifier key or a file holding it; by default the export's own, which proves only the export's coherence),
 * `checkpoint` a checkpoint file kept elsewhere. Throws a LogProblem naming the first thing that does not hold.
 */
export async function verifyExportDirectory(
  dir: string,
  flags: { key?: string; checkpoint?: string },
  warn: (message: string) => void = () => undefined,
): Promise<VerifiedLog> {
  const key = readKey(flags.key, dir);
  if (key.fromExport)
    warn(
      `the checkpoint key was read from ${join(dir, EXPORT_FILES.key)}, the export itself: pass --key with the key kept elsewhere to check the signatures against it`,
    );
  const checkpoints: string[] = [];
  for await (const line of linesOf(join(dir, EXPORT_FILES.checkpoints))) {
    let note: unknown;
    try {
      note = JSON.parse(line);
    } catch {
      note = undefined;
    }
    if (typeof note !== "string")
      throw new LogProblem("bad signature", 0, `line ${checkpoints.length + 1} of ${EXPORT_FILES.checkpoints} is not a note`);
    checkpoints.push(note);
  }
  const latest = join(dir, EXPORT_FILES.latest);
  if (existsSync(latest)) checkpoints.push(readFileSync(latest, "utf8"));
  return verifyLog({
    key: parseVerifierKey(key.text),
    entries: () => linesOf(join(dir, EXPORT_FILES.entries)),
    checkpoints,
    ...(flags.checkpoint !== undefined ? { kept: readFileSync(flags.checkpoint, "utf8") } : {}),
  });
}
