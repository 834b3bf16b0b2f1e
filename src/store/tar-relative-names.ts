const BLOCK = 512;
const NAME = { at: 0, length: 100 };
const SIZE = { at: 124, length: 12 };
const CHECKSUM = { at: 148, length: 8 };
const PREFIX = { at: 345, length: 155 };

const field = (header: Uint8Array, f: { at: number; length: number }) => header.subarray(f.at, f.at + f.length);
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1").replace(/\0.*$/s, "");

/** Drops the leading slashes of a NUL-padded field in place; true when there were any. */
function dropLeadingSlashes(bytes: Uint8Array): boolean {
  let slashes = 0;
  while (slashes < bytes.length && bytes[slashes] === 0x2f) slashes++;
  if (slashes === 0) return false;
  bytes.copyWithin(0, slashes);
  bytes.fill(0, bytes.length - slashes);
  return true;
}

/**
 * A (ustar) tar archive whose member names are absolute (`/base/1/112`, as PGlite's `dumpDataDir` writes them) made
 * relative (`base/1/112`), so that `tar -x` unpacks it where it is run instead of at the root of the filesystem (GNU
 * tar strips the slash with a warning; others do not). Each header's checksum is computed again. The contents and
 * every other field are kept byte for byte.
 */
export function withRelativeNames(archive: Uint8Array): Uint8Array {
  const out = new Uint8Array(archive);
  for (let at = 0; at + BLOCK <= out.length;) {
    const header = out.subarray(at, at + BLOCK);
    if (header.every((byte) => byte === 0)) break; // the end-of-archive blocks
    const name = field(header, NAME);
    const prefix = field(header, PREFIX);
    const changed = text(prefix) !== "" ? dropLeadingSlashes(prefix) : dropLeadingSlashes(name);
    if (changed) {
      if (text(name) === "" && text(prefix) === "") name.set(Buffer.from("./"));
      const checksum = field(header, CHECKSUM);
      checksum.fill(0x20);
      const sum = header.reduce((total, byte) => total + byte, 0);
      checksum.set(Buffer.from(`${sum.toString(8).padStart(6, "0")}\0 `, "latin1"));
    }
    const size = parseInt(text(field(header, SIZE)).trim() || "0", 8);
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return out;
}
