export const HARDENED = 0x80000000;

export interface ParsedPath {
  /** Child indexes, hardened ones with HARDENED added. */
  indexes: number[];
}

export class InvalidPathError extends Error {
  constructor(path: string, why: string) {
    super(`invalid path ${JSON.stringify(path)}: ${why}`);
    this.name = "InvalidPathError";
  }
}

/** Parses a BIP-32 path such as m/44'/60'/0'/0/0 (h or H also mark hardened segments). */
export function parsePath(path: string): ParsedPath {
  const segments = path.split("/");
  if (segments[0] !== "m") throw new InvalidPathError(path, "it must start with m");
  if (segments.length > 256) throw new InvalidPathError(path, "it is deeper than 255 levels");
  const indexes = segments.slice(1).map((segment) => {
    const match = /^([0-9]{1,10})(['hH]?)$/.exec(segment);
    if (!match) throw new InvalidPathError(path, `segment ${JSON.stringify(segment)} is not an index, optionally followed by '`);
    const index = Number(match[1]);
    if (index >= HARDENED) throw new InvalidPathError(path, `index ${index} is not below 2^31`);
    return match[2] ? index + HARDENED : index;
  });
  return { indexes };
}
