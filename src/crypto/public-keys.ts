import { createPublicKey, type KeyObject } from "node:crypto";

/**
 * Node's crypto verifies P-256, secp256k1 and Ed25519 signatures several times faster than pure
 * JS; these helpers turn the API's hex public keys into KeyObjects (SPKI with the raw point).
 */
const SPKI_PREFIX = {
  p256Compressed: "3039301306072a8648ce3d020106082a8648ce3d030107032200",
  p256Uncompressed: "3059301306072a8648ce3d020106082a8648ce3d030107034200",
  secp256k1Compressed: "3036301006072a8648ce3d020106052b8104000a032200",
  secp256k1Uncompressed: "3056301006072a8648ce3d020106052b8104000a034200",
  ed25519: "302a300506032b6570032100",
} as const;

export type KeyCurve = "p256" | "secp256k1" | "ed25519";

const cache = new Map<string, KeyObject>();
const CACHE_LIMIT = 10_000;

function prefixFor(curve: KeyCurve, hex: string): string | undefined {
  if (!/^[0-9a-fA-F]+$/.test(hex)) return undefined;
  if (curve === "ed25519") return hex.length === 64 ? SPKI_PREFIX.ed25519 : undefined;
  const compressed = hex.length === 66 && (hex.startsWith("02") || hex.startsWith("03"));
  const uncompressed = hex.length === 130 && hex.startsWith("04");
  if (curve === "p256") return compressed ? SPKI_PREFIX.p256Compressed : uncompressed ? SPKI_PREFIX.p256Uncompressed : undefined;
  return compressed ? SPKI_PREFIX.secp256k1Compressed : uncompressed ? SPKI_PREFIX.secp256k1Uncompressed : undefined;
}

/** A KeyObject for a hex public key, or undefined when the hex is not a valid key on that curve. */
export function publicKeyObject(curve: KeyCurve, hex: string): KeyObject | undefined {
  const cacheKey = `${curve}:${hex.toLowerCase()}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const prefix = prefixFor(curve, hex);
  if (!prefix) return undefined;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(prefix + hex, "hex"), format: "der", type: "spki" });
  } catch {
    return undefined;
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(cacheKey, key);
  return key;
}

export function isValidPublicKey(curve: KeyCurve, hex: string): boolean {
  return publicKeyObject(curve, hex) !== undefined;
}

/**
 * Whether two hex P-256 public keys are the same point, whatever their encoding (compressed `02/03‖x` or
 * uncompressed `04‖x‖y`, either case): false when either is not a valid P-256 key.
 */
export function sameP256PublicKey(a: string, b: string): boolean {
  const first = publicKeyObject("p256", a);
  const second = publicKeyObject("p256", b);
  if (!first || !second) return false;
  const point = (key: KeyObject) => key.export({ format: "jwk" });
  const [x, y] = [point(first), point(second)];
  return x.x === y.x && x.y === y.y;
}
