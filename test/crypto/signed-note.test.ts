import { ed25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it } from "vitest";
import {
  checkpointText,
  encodeVerifierKey,
  isValidKeyName,
  noteKeyId,
  openCheckpoint,
  openNote,
  parseVerifierKey,
  signNote,
} from "../../src/crypto/signed-note.js";

/** C2SP signed notes and checkpoints: the format's rules (Go's sumdb/note agrees, test/audit/go-oracle.test.ts). */
describe("signed notes and checkpoints", () => {
  const secret = ed25519.utils.randomSecretKey();
  const name = "strongroom.audit/0011223344556677";
  const key = parseVerifierKey(encodeVerifierKey(name, ed25519.getPublicKey(secret)));
  const text = checkpointText({ origin: name, size: 42, root: new Uint8Array(32).fill(9) });

  it("signs and opens a checkpoint; the key ID is SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key)[:4]", () => {
    const note = signNote(text, name, secret);
    expect(note).toBe(`${text}\n\u2014 ${name} ${note.split(" ").pop()}`);
    expect(Buffer.from(note.trim().split(" ").pop()!, "base64").readUInt32BE(0)).toBe(noteKeyId(name, key.publicKey));
    expect(openCheckpoint(note, key)).toMatchObject({ origin: name, size: 42 });
  });

  it("refuses a changed text, a changed signature, and a note signed only by another key", () => {
    const note = signNote(text, name, secret);
    expect(() => openNote(note.replace("\n42\n", "\n43\n"), key)).toThrow(/does not verify/);
    const signature = note.trim().split(" ").pop()!;
    const flipped = Buffer.from(signature, "base64");
    flipped[10] = flipped[10]! ^ 1;
    expect(() => openNote(note.replace(signature, flipped.toString("base64")), key)).toThrow(/does not verify/);
    const other = signNote(text, name, ed25519.utils.randomSecretKey());
    expect(() => openNote(other, key)).toThrow(/not signed by/);
    // Another key's signature beside ours is ignored, as the specification requires.
    const both = `${note}${other.slice(other.lastIndexOf("\u2014"))}`;
    expect(openNote(both, key)).toBe(text);
  });

  it("refuses key names with spaces or plus signs, control characters, and verifier keys whose ID does not match", () => {
    expect(isValidKeyName("a b")).toBe(false);
    expect(isValidKeyName("a+b")).toBe(false);
    expect(isValidKeyName("")).toBe(false);
    expect(() => openNote(`${text}\u0007\n\n\u2014 ${name} AAAA\n`, key)).toThrow(/control characters/);
    const encoded = encodeVerifierKey(name, key.publicKey);
    const wrongId = encoded.replace(/\+[0-9a-f]{8}\+/, "+00000000+");
    expect(() => parseVerifierKey(wrongId)).toThrow(/key ID does not match/);
    expect(() => parseVerifierKey("nokey")).toThrow(/<name>\+<key ID>\+<base64 key>/);
  });

  it("refuses a checkpoint whose origin is not the key's name", () => {
    const elsewhere = signNote(checkpointText({ origin: "other.example/log", size: 1, root: new Uint8Array(32) }), name, secret);
    expect(() => openCheckpoint(elsewhere, key)).toThrow(/origin other.example\/log is not/);
  });
});
