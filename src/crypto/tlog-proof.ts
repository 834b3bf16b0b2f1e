import { leafHash, verifyInclusion, type Hash } from "./merkle.js";
import { base64 } from "@scure/base";
import { decodeBase64, NoteError, openCheckpoint, type Checkpoint, type NoteVerifierKey } from "./signed-note.js";

/**
 * C2SP tlog-proof (c2sp.org/tlog-proof@v1): an offline-verifiable proof that an entry is in a log — the header
 * line, `index <n>`, the RFC 6962 inclusion proof (one base64 hash a line, the leaf's sibling first), an empty
 * line, and the checkpoint note verbatim.
 */
const HEADER = "c2sp.org/tlog-proof@v1";

export function formatTlogProof(index: number, proof: Hash[], checkpointNote: string): string {
  const hashes = proof.map((hash) => `${base64.encode(hash)}\n`).join("");
  return `${HEADER}\nindex ${index}\n${hashes}\n${checkpointNote}`;
}

export interface TlogProof {
  index: number;
  proof: Hash[];
  checkpointNote: string;
}

export function parseTlogProof(text: string): TlogProof {
  const blank = text.indexOf("\n\n");
  if (blank < 0) throw new NoteError("a tlog-proof has an empty line before its checkpoint");
  const lines = text.slice(0, blank).split("\n");
  if (lines[0] !== HEADER) throw new NoteError(`a tlog-proof starts with ${HEADER}`);
  let at = 1;
  if (lines[at]?.startsWith("extra ")) at++;
  const index = /^index (0|[1-9][0-9]*)$/.exec(lines[at] ?? "");
  if (!index) throw new NoteError("a tlog-proof names its index: index <n>");
  const proof = lines.slice(at + 1).map((line) => {
    const hash = decodeBase64(line);
    if (hash?.length !== 32) throw new NoteError(`${JSON.stringify(line)} is not a base64 SHA-256 hash`);
    return hash;
  });
  return { index: Number(index[1]), proof, checkpointNote: text.slice(blank + 2) };
}

/** Verifies that `entry` (its exact bytes) is at the proof's index of the log whose checkpoint `key` signed; answers that checkpoint. */
export function verifyTlogProof(text: string, entry: Uint8Array, key: NoteVerifierKey): Checkpoint & { index: number } {
  const { index, proof, checkpointNote } = parseTlogProof(text);
  const checkpoint = openCheckpoint(checkpointNote, key);
  if (!verifyInclusion(index, checkpoint.size, leafHash(entry), proof, checkpoint.root))
    throw new NoteError(`the entry is not at index ${index} of the checkpointed tree of size ${checkpoint.size}`);
  return { ...checkpoint, index };
}
