import { hashesEqual, leafHash, MerkleFrontier } from "../crypto/merkle.js";
import { openCheckpoint, parseCheckpointText, type Checkpoint, type NoteVerifierKey } from "../crypto/signed-note.js";

/** What `strongroom audit verify` can find wrong, each named with the first index it concerns. */
export type ProblemKind = "gap" | "edit" | "reorder" | "deletion" | "bad signature" | "inconsistent checkpoint" | "unsigned";

export class LogProblem extends Error {
  constructor(
    readonly kind: ProblemKind,
    readonly index: number,
    detail: string,
  ) {
    super(`${kind} at index ${index}: ${detail}`);
  }
}

export interface LogToVerify {
  key: NoteVerifierKey;
  /** The entries, one a line, in the order of the export (an entry's exact bytes, without the newline). Read twice. */
  entries: () => AsyncIterable<string>;
  /** Every checkpoint note of the export. */
  checkpoints: string[];
  /** A checkpoint kept elsewhere (an earlier export's, a monitor's): the log must extend it. */
  kept?: string;
}

export interface VerifiedLog {
  size: number;
  root: Uint8Array;
  checkpoints: number;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/** The size a note claims, read without trusting it, to name a checkpoint whose signature fails. */
function claimedSize(note: string): number {
  try {
    return parseCheckpointText(note.slice(0, note.lastIndexOf("\n\n") + 1)).size;
  } catch {
    return 0;
  }
}

function openSigned(note: string, key: NoteVerifierKey, which: string): Checkpoint {
  try {
    return openCheckpoint(note, key);
  } catch (error) {
    throw new LogProblem("bad signature", claimedSize(note), `${which}: ${(error as Error).message}`);
  }
}

/** The index an entry line claims, or undefined when it is not an entry at all. */
function claimedIndex(line: string): { index: number; previousRoot?: unknown } | undefined {
  try {
    const entry = JSON.parse(line) as { index?: unknown; previousRoot?: unknown };
    return Number.isSafeInteger(entry.index) ? { index: entry.index as number, previousRoot: entry.previousRoot } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies an exported log offline, throwing a LogProblem naming the first thing that does not hold:
 *
 * - every checkpoint's signature by `key` (and its origin: the key's name) — "bad signature";
 * - each entry, in order: it is JSON naming its own index (a line whose index is not its position is a "gap"
 *   when nothing else claims that index, else a "reorder") and the root of the tree before it (which it does not
 *   match when an earlier entry was changed — an "edit" of that earlier entry);
 * - the recomputed RFC 6962 root at every checkpoint's size — entries that no longer hash to a signed root are an
 *   "edit" of the last entry before it (each earlier one is vouched for by the root the entry after it names; a whole
 *   rewrite is only located between two checkpoints);
 * - no checkpoint larger than the entries ("deletion": the tail was cut), no entries past the latest checkpoint
 *   ("unsigned": nothing vouches for them), and the checkpoint kept elsewhere: not larger ("deletion") and at its
 *   size the same root ("inconsistent checkpoint").
 */
export async function verifyLog(log: LogToVerify): Promise<VerifiedLog> {
  const signed = log.checkpoints.map((note, i) => openSigned(note, log.key, `checkpoint ${i + 1} of the export`));
  const kept = log.kept === undefined ? undefined : openSigned(log.kept, log.key, "the checkpoint kept elsewhere");
  const bySize = new Map<number, Checkpoint>();
  for (const checkpoint of signed) {
    const twin = bySize.get(checkpoint.size);
    if (twin && !hashesEqual(twin.root, checkpoint.root))
      throw new LogProblem("inconsistent checkpoint", checkpoint.size, `two checkpoints of size ${checkpoint.size} sign different roots`);
    bySize.set(checkpoint.size, checkpoint);
  }
  const sizes = [...bySize.keys()].sort((a, b) => a - b);

  // The indexes claimed by lines not at their own position, to tell a missing entry from a moved one.
  const misplaced = new Set<number>();
  let position = 0;
  for await (const line of log.entries()) {
    const claimed = claimedIndex(line);
    if (claimed && claimed.index !== position) misplaced.add(claimed.index);
    position++;
  }

  const frontier = new MerkleFrontier(0);
  let nextCheckpoint = 0;
  /** The size of the last checkpoint the entries matched: a mismatch lies in the entries after it. */
  let lastGood = 0;
  const check = (checkpoint: Checkpoint, kept: boolean) => {
    if (hashesEqual(frontier.root(), checkpoint.root)) return;
    if (kept)
      throw new LogProblem(
        "inconsistent checkpoint",
        lastGood,
        `the log's first ${checkpoint.size} entries do not hash to the root of the checkpoint kept elsewhere (${b64(checkpoint.root)}): history was rewritten`,
      );
    // Each entry up to the last one before the checkpoint named the root of the entries before it, and matched it: so
    // the last one was changed (alone, or with the entries since the previous good checkpoint rewritten to match it).
    const last = checkpoint.size - 1;
    throw new LogProblem(
      "edit",
      last,
      last === lastGood
        ? `entry ${last} does not hash to the signed checkpoint of size ${checkpoint.size}`
        : `entry ${last} does not hash to the signed checkpoint of size ${checkpoint.size} (changed, or entries ${lastGood} to ${last} rewritten)`,
    );
  };
  const reached = () => {
    while (nextCheckpoint < sizes.length && sizes[nextCheckpoint] === frontier.treeSize) {
      check(bySize.get(sizes[nextCheckpoint++]!)!, false);
      lastGood = frontier.treeSize;
    }
    if (kept?.size === frontier.treeSize) check(kept, true);
  };
  reached();
  for await (const line of log.entries()) {
    const index = frontier.treeSize;
    const claimed = claimedIndex(line);
    if (!claimed) throw new LogProblem("edit", index, `line ${index + 1} is not an audit entry (JSON naming its index)`);
    if (claimed.index !== index) {
      if (claimed.index > index && !misplaced.has(index))
        throw new LogProblem(
          "gap",
          index,
          `entry ${index} is missing: the entry after index ${index - 1} says it is index ${claimed.index}`,
        );
      throw new LogProblem("reorder", index, `the entry at position ${index} says it is index ${claimed.index}`);
    }
    if (claimed.previousRoot !== b64(frontier.root())) {
      throw new LogProblem(
        "edit",
        Math.max(0, index - 1),
        index === 0
          ? "entry 0 does not name the empty tree's root as the root before it"
          : `entry ${index - 1} was changed: the entries before ${index} do not hash to the root entry ${index} names (or that record in entry ${index} was changed)`,
      );
    }
    frontier.append(leafHash(new TextEncoder().encode(line)));
    reached();
  }
  const size = frontier.treeSize;
  const largest = sizes[sizes.length - 1];
  if (largest !== undefined && largest > size)
    throw new LogProblem(
      "deletion",
      size,
      `the signed checkpoint of size ${largest} covers entries ${size} to ${largest - 1}, which are missing`,
    );
  if (kept && kept.size > size)
    throw new LogProblem("deletion", size, `the checkpoint kept elsewhere covers entries ${size} to ${kept.size - 1}, which are missing`);
  if (largest === undefined || largest < size)
    throw new LogProblem(
      "unsigned",
      largest ?? 0,
      largest === undefined
        ? "the export holds no signed checkpoint"
        : `entries ${largest} to ${size - 1} are covered by no signed checkpoint`,
    );
  return { size, root: frontier.root(), checkpoints: sizes.length };
}
