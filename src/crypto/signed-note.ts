import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64 } from "@scure/base";

/**
 * C2SP signed notes (c2sp.org/signed-note) with Ed25519 signatures, and the transparency-log checkpoints
 * (c2sp.org/tlog-checkpoint) written in them. A note is its text (ending in a newline), a blank line, and
 * signature lines `— <key name> base64(key ID ‖ signature)`; the key ID is the first four bytes of
 * SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ public key). A verifier key is written as Go's golang.org/x/mod/sumdb/note
 * writes it, `<name>+<key ID, 8 hex digits>+base64(0x01 ‖ public key)`, so Go's note package reads ours.
 */

const ED25519_TYPE = 0x01;
const EM_DASH = "\u2014";

export interface NoteVerifierKey {
  name: string;
  keyId: number;
  publicKey: Uint8Array;
}

/** Key names must be non-empty, without Unicode spaces or plus signs (or control characters, which a note may not hold). */
export function isValidKeyName(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  return name.length > 0 && !/[\s+\p{Zs}\u0000-\u001f\u007f]/u.test(name);
}

export function noteKeyId(name: string, publicKey: Uint8Array): number {
  const digest = sha256
    .create()
    .update(new TextEncoder().encode(name))
    .update(new Uint8Array([0x0a, ED25519_TYPE]))
    .update(publicKey)
    .digest();
  return new DataView(digest.buffer, digest.byteOffset).getUint32(0);
}

export function encodeVerifierKey(name: string, publicKey: Uint8Array): string {
  if (!isValidKeyName(name)) throw new Error(`${JSON.stringify(name)} is not a valid note key name`);
  const id = noteKeyId(name, publicKey).toString(16).padStart(8, "0");
  return `${name}+${id}+${base64.encode(new Uint8Array([ED25519_TYPE, ...publicKey]))}`;
}

/** Parses `<name>+<hex key ID>+<base64(0x01 ‖ key)>`; throws naming what is wrong. */
export function parseVerifierKey(text: string): NoteVerifierKey {
  const parts = text.trim().split("+");
  // The name may not contain "+", but base64 may: the name is before the first "+", the ID before the second.
  if (parts.length < 3) throw new Error("a verifier key is <name>+<key ID>+<base64 key>");
  const [name, idHex] = parts as [string, string];
  const keyText = parts.slice(2).join("+");
  if (!isValidKeyName(name)) throw new Error(`verifier key: ${JSON.stringify(name)} is not a valid key name`);
  if (!/^[0-9a-f]{8}$/.test(idHex)) throw new Error("verifier key: the key ID must be 8 lowercase hex digits");
  const key = decodeBase64(keyText);
  if (!key || key.length !== 33 || key[0] !== ED25519_TYPE)
    throw new Error("verifier key: the key must be base64 of 0x01 and a 32-byte Ed25519 public key");
  const publicKey = new Uint8Array(key.subarray(1));
  const keyId = Number.parseInt(idHex, 16);
  if (keyId !== noteKeyId(name, publicKey)) throw new Error("verifier key: the key ID does not match the name and key");
  return { name, keyId, publicKey };
}

/** Signs `text` (which must end in a newline) and answers the whole note. */
export function signNote(text: string, name: string, secretKey: Uint8Array): string {
  if (!text.endsWith("\n")) throw new Error("a note's text ends with a newline");
  const publicKey = ed25519.getPublicKey(secretKey);
  const signature = ed25519.sign(new TextEncoder().encode(text), secretKey);
  const signed = new Uint8Array(4 + signature.length);
  new DataView(signed.buffer).setUint32(0, noteKeyId(name, publicKey));
  signed.set(signature, 4);
  return `${text}\n${EM_DASH} ${name} ${base64.encode(signed)}\n`;
}

export class NoteError extends Error {}

/** The bytes of canonical, padded base64 (one encoding per value: what re-encodes to the same text), else undefined. */
export function decodeBase64(text: string): Uint8Array | undefined {
  try {
    const bytes = base64.decode(text);
    return base64.encode(bytes) === text ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The text of `note` once a signature by `key` on it verifies. Signatures of other keys are ignored (as the
 * specification requires); a signature that names this key and does not verify rejects the note.
 */
export function openNote(note: string, key: NoteVerifierKey): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note)) throw new NoteError("the note holds control characters");
  if (!note.endsWith("\n")) throw new NoteError("the note does not end with a newline");
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new NoteError("the note has no signatures");
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split("\n");
  let verified = false;
  for (const line of lines) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/u.exec(line);
    if (!match) throw new NoteError(`malformed signature line ${JSON.stringify(line)}`);
    const bytes = decodeBase64(match[2]!);
    if (!bytes) throw new NoteError(`malformed signature line ${JSON.stringify(line)}`);
    if (bytes.length < 5) throw new NoteError("a signature is too short");
    if (match[1] !== key.name || new DataView(bytes.buffer, bytes.byteOffset).getUint32(0) !== key.keyId) continue;
    if (!ed25519.verify(bytes.subarray(4), new TextEncoder().encode(text), key.publicKey))
      throw new NoteError(`the signature by ${key.name} does not verify`);
    verified = true;
  }
  if (!verified) throw new NoteError(`the note is not signed by ${key.name}`);
  return text;
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

/** The note text of a checkpoint: origin, tree size and root hash, one a line. */
export function checkpointText(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${base64.encode(checkpoint.root)}\n`;
}

/** Parses a checkpoint's note text (extension lines are allowed and ignored). */
export function parseCheckpointText(text: string): Checkpoint {
  const lines = text.split("\n");
  if (lines.length < 4 || lines[lines.length - 1] !== "") throw new NoteError("a checkpoint has an origin, a size and a root hash");
  const [origin, sizeText, rootText] = lines as [string, string, string];
  if (!origin) throw new NoteError("the checkpoint's origin is empty");
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText)))
    throw new NoteError(`the checkpoint's size ${JSON.stringify(sizeText)} is not a decimal number`);
  const root = decodeBase64(rootText);
  if (root?.length !== 32) throw new NoteError("the checkpoint's root is not base64 of 32 bytes");
  return { origin, size: Number(sizeText), root };
}

/** A checkpoint note, verified by `key`, whose origin must be the key's name. */
export function openCheckpoint(note: string, key: NoteVerifierKey): Checkpoint {
  const checkpoint = parseCheckpointText(openNote(note, key));
  if (checkpoint.origin !== key.name) throw new NoteError(`the checkpoint's origin ${checkpoint.origin} is not ${key.name}`);
  return checkpoint;
}
