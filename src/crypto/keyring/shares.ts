import { combine, split } from "shamir-secret-sharing";

/** Shares as printed by `init` (and taken by /strongroom/v1/unseal and --*-shares-file): base64 of the share's bytes. */
export type ShareText = string;

/** A secret of `length` bytes splits into shares of length + 1 bytes (the last is the share's x coordinate). */
export async function splitSecret(secret: Uint8Array, shares: number, threshold: number): Promise<ShareText[]> {
  checkSharing(shares, threshold, "--key-shares", "--key-threshold");
  // A copy: the library checks `instanceof Uint8Array`, which a Buffer from another realm (a test runner's) fails.
  const copy = new Uint8Array(secret);
  try {
    return (await split(copy, shares, threshold)).map((share) => Buffer.from(share).toString("base64"));
  } finally {
    copy.fill(0);
  }
}

/** The bounds shamir-secret-sharing keeps (2 ≤ threshold ≤ shares ≤ 255), said with the flags' names. */
export function checkSharing(shares: number, threshold: number, sharesFlag: string, thresholdFlag: string): void {
  if (!Number.isInteger(shares) || shares < 2 || shares > 255) throw new Error(`${sharesFlag} must be a whole number from 2 to 255`);
  if (!Number.isInteger(threshold) || threshold < 2 || threshold > shares)
    throw new Error(`${thresholdFlag} must be a whole number from 2 to ${sharesFlag} (${shares})`);
}

/** A share's bytes; throws naming what is wrong with the text. */
export function parseShare(text: string, secretLength = 32): Uint8Array {
  const trimmed = text.trim();
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, "base64") : Buffer.alloc(0);
  if (bytes.length !== secretLength + 1 || bytes[secretLength] === 0) {
    throw new Error(`a key share is base64 of ${secretLength + 1} bytes, as \`strongroom init\` printed it`);
  }
  return new Uint8Array(bytes);
}

/** The x coordinate of a share: two shares with the same one are the same share. */
export const shareIndex = (share: Uint8Array): number => share[share.length - 1]!;

/** The secret `shares` combine into. Wrong shares combine into another secret: the caller checks it (an AEAD opening). */
export async function combineShares(shares: Uint8Array[]): Promise<Uint8Array> {
  return combine(shares.map((share) => new Uint8Array(share)));
}
