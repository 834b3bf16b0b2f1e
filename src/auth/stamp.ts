import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { verify } from "node:crypto";
import { unauthenticated } from "../errors.js";
import { publicKeyObject, type KeyCurve } from "../crypto/public-keys.js";

export const API_KEY_SCHEMES = {
  SIGNATURE_SCHEME_TK_API_P256: "p256",
  SIGNATURE_SCHEME_TK_API_SECP256K1: "secp256k1",
  SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191: "secp256k1",
  SIGNATURE_SCHEME_TK_API_ED25519: "ed25519",
} as const satisfies Record<string, KeyCurve>;

export type ApiKeyScheme = keyof typeof API_KEY_SCHEMES;

export interface ApiKeyStamp {
  kind: "api-key";
  publicKey: string;
  scheme: ApiKeyScheme;
  signature: string;
}

export interface WebAuthnStamp {
  kind: "webauthn";
  credentialId: string;
  authenticatorData: string;
  clientDataJson: string;
  signature: string;
}

/** The schemes of X-Stamp-Attested: what the attestation is (a verification token from verify_otp, an OIDC token). */
export const ATTESTED_SCHEMES = ["STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN", "STAMP_ATTESTED_SCHEME_P256_OIDC"] as const;
export type AttestedScheme = (typeof ATTESTED_SCHEMES)[number];

/**
 * X-Stamp-Attested (@turnkey/core ≥ 2.6 after OTP or OAuth): a P-256 key the client holds signs the body
 * (DER hex over sha256), and `publicKeyAttestation` is a token that binds that key to a proven identity.
 */
export interface AttestedStamp {
  kind: "attested";
  scheme: AttestedScheme;
  publicKey: string;
  signature: string;
  publicKeyAttestation: string;
}

export type Stamp = ApiKeyStamp | WebAuthnStamp | AttestedStamp;

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw unauthenticated(`malformed ${what}: not a JSON object`, "SIGNATURE_INVALID");
}

function stringField(obj: Record<string, unknown>, field: string, what: string): string {
  const value = obj[field];
  if (typeof value !== "string" || value.length === 0) {
    throw unauthenticated(`malformed ${what}: missing string field "${field}"`, "SIGNATURE_INVALID");
  }
  return value;
}

/** Reads the stamp from the request headers (names are case-insensitive; Node lowercases them). */
export function parseStamp(headers: Headers): Stamp {
  const apiStamp = header(headers, "x-stamp");
  if (apiStamp !== undefined) {
    const decoded = Buffer.from(apiStamp, "base64url").toString("utf8");
    const obj = parseJsonObject(decoded, "X-Stamp header");
    const scheme = stringField(obj, "scheme", "X-Stamp header");
    if (!(scheme in API_KEY_SCHEMES)) {
      throw unauthenticated(
        `unsupported stamp scheme "${scheme}"; expected one of ${Object.keys(API_KEY_SCHEMES).join(", ")}`,
        "SIGNATURE_INVALID",
      );
    }
    return {
      kind: "api-key",
      publicKey: stringField(obj, "publicKey", "X-Stamp header").toLowerCase(),
      scheme: scheme as ApiKeyScheme,
      signature: stringField(obj, "signature", "X-Stamp header"),
    };
  }
  const webauthn = header(headers, "x-stamp-webauthn");
  if (webauthn !== undefined) {
    const obj = parseJsonObject(webauthn, "X-Stamp-WebAuthn header");
    const what = "X-Stamp-WebAuthn header";
    return {
      kind: "webauthn",
      credentialId: stringField(obj, "credentialId", what),
      authenticatorData: stringField(obj, "authenticatorData", what),
      clientDataJson: stringField(obj, "clientDataJson", what),
      signature: stringField(obj, "signature", what),
    };
  }
  const attested = header(headers, "x-stamp-attested");
  if (attested !== undefined) {
    const what = "X-Stamp-Attested header";
    const obj = parseJsonObject(Buffer.from(attested, "base64url").toString("utf8"), what);
    const scheme = stringField(obj, "scheme", what);
    if (!(ATTESTED_SCHEMES as readonly string[]).includes(scheme)) {
      throw unauthenticated(
        `unsupported attested stamp scheme "${scheme}"; expected one of ${ATTESTED_SCHEMES.join(", ")}`,
        "SIGNATURE_INVALID",
      );
    }
    return {
      kind: "attested",
      scheme: scheme as AttestedScheme,
      publicKey: stringField(obj, "publicKey", what).toLowerCase(),
      signature: stringField(obj, "signature", what),
      publicKeyAttestation: stringField(obj, "publicKeyAttestation", what),
    };
  }
  throw unauthenticated(
    "cannot authenticate public API request without a stamp (X-Stamp, X-Stamp-WebAuthn or X-Stamp-Attested header)",
    "SIGNATURE_MISSING",
  );
}

function eip191Digest(body: Buffer): Uint8Array {
  const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${body.length}`, "utf8");
  return keccak_256(Buffer.concat([prefix, body]));
}

/**
 * r‖s (64 bytes) of a DER ECDSA signature over secp256k1, accepting integers with superfluous leading zero bytes:
 * `@turnkey/wallet-stamper` encodes a wallet's r‖s with `@turnkey/crypto`'s toDerSignature, which keeps a
 * leading 0x00 of r or s (about one signature in 128), and strict DER parsers refuse that. Anything else that is
 * not SEQUENCE { INTEGER r, INTEGER s } with nothing after it is refused (undefined).
 */
function compactFromPaddedDer(der: Uint8Array): Uint8Array | undefined {
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) return undefined;
  const compact = new Uint8Array(64);
  let offset = 2;
  for (const half of [0, 32]) {
    const length = der[offset + 1];
    if (der[offset] !== 0x02 || length === undefined || length === 0 || offset + 2 + length > der.length) return undefined;
    let integer = der.subarray(offset + 2, offset + 2 + length);
    if ((integer[0]! & 0x80) !== 0) return undefined; // negative
    while (integer.length > 1 && integer[0] === 0) integer = integer.subarray(1);
    if (integer.length > 32) return undefined;
    compact.set(integer, half + 32 - integer.length);
    offset += 2 + length;
  }
  return offset === der.length ? compact : undefined;
}

/**
 * Checks an API-key stamp's signature over the exact request bytes. Needs no database: the
 * public key is in the stamp; whether it belongs to the organization is checked afterwards.
 */
export function verifyApiKeySignature(stamp: ApiKeyStamp, rawBody: Buffer): boolean {
  const curve = API_KEY_SCHEMES[stamp.scheme];
  const key = publicKeyObject(curve, stamp.publicKey);
  if (!key || !/^[0-9a-fA-F]+$/.test(stamp.signature)) return false;
  const signature = Buffer.from(stamp.signature, "hex");
  try {
    switch (stamp.scheme) {
      case "SIGNATURE_SCHEME_TK_API_P256":
      case "SIGNATURE_SCHEME_TK_API_SECP256K1":
        return verify("sha256", rawBody, key, signature);
      case "SIGNATURE_SCHEME_TK_API_ED25519":
        return verify(null, rawBody, key, signature);
      case "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191": {
        const compact = compactFromPaddedDer(signature);
        return (
          compact !== undefined &&
          secp256k1.verify(compact, eip191Digest(rawBody), Buffer.from(stamp.publicKey, "hex"), {
            prehash: false,
            lowS: false,
            format: "compact",
          })
        );
      }
    }
  } catch {
    return false;
  }
}
