import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { TypedDataDefinition } from "viem";
import { viem, viemUtils } from "../chain-libraries.js";
import type { Curve } from "../hd/derive.js";
import { signEcdsa, signEd25519, signSchnorr, type RawSignature } from "./curves.js";
import { decodeHex, SigningInputError } from "./errors.js";

export { SigningInputError } from "./errors.js";
export type { RawSignature } from "./curves.js";

export const PAYLOAD_ENCODINGS = [
  "PAYLOAD_ENCODING_HEXADECIMAL",
  "PAYLOAD_ENCODING_TEXT_UTF8",
  "PAYLOAD_ENCODING_EIP712",
  "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
] as const;
export type PayloadEncoding = (typeof PAYLOAD_ENCODINGS)[number];
export const HASH_FUNCTIONS = [
  "HASH_FUNCTION_NO_OP",
  "HASH_FUNCTION_SHA256",
  "HASH_FUNCTION_KECCAK256",
  "HASH_FUNCTION_NOT_APPLICABLE",
] as const;
export type HashFunction = (typeof HASH_FUNCTIONS)[number];

export interface SigningKey {
  curve: Curve;
  privateKey: Uint8Array;
  /**
   * The account's address format when the key was named by an address: Bitcoin `*_P2TR` signs
   * BIP-341 tweaked Schnorr (BIP-86, no script tree), `SPARK_*` untweaked BIP-340 Schnorr; any other
   * (or none) signs ECDSA / Ed25519 by curve.
   */
  addressFormat?: string;
}

function schnorrMode(addressFormat: string | undefined): "taproot" | "plain" | undefined {
  if (addressFormat?.startsWith("ADDRESS_FORMAT_BITCOIN_") && addressFormat.endsWith("_P2TR")) return "taproot";
  if (addressFormat?.startsWith("ADDRESS_FORMAT_SPARK_")) return "plain";
  return undefined;
}

function parseJson(payload: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(payload);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new SigningInputError(`payload: not ${what} as JSON`);
}

/** A non-negative integer given as a JSON number, a decimal string or a 0x-hex string. */
function integerField(value: unknown, name: string): bigint {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "bigint" && value >= 0n) return value;
  if (typeof value === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value);
  throw new SigningInputError(
    `payload: EIP-7702 authorization ${name} must be a non-negative integer, got ${JSON.stringify(value) ?? "nothing"}`,
  );
}

/**
 * The EIP-712 or EIP-7702 digest a structured payload stands for. EIP-712: the typed data JSON
 * ({types, primaryType, domain, message}, as viem's serializeTypedData and ethers'
 * TypedDataEncoder.getPayload write it; integers may be decimal strings) → hashTypedData.
 * EIP-7702: {chainId, address (or contractAddress), nonce} → keccak256(0x05 ‖ rlp([chainId, address, nonce])).
 */
function structuredDigest(payload: string, encoding: "PAYLOAD_ENCODING_EIP712" | "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION"): Uint8Array {
  try {
    if (encoding === "PAYLOAD_ENCODING_EIP712") {
      const typed = parseJson(payload, "EIP-712 typed data");
      if (typeof typed.primaryType !== "string" || typeof typed.types !== "object" || typed.types === null) {
        throw new SigningInputError("payload: EIP-712 typed data needs types and primaryType");
      }
      return decodeHex(viem().hashTypedData({ ...typed, domain: typed.domain ?? {} } as unknown as TypedDataDefinition), "payload");
    }
    const authorization = parseJson(payload, "an EIP-7702 authorization {chainId, address, nonce}");
    const address = authorization.address ?? authorization.contractAddress;
    if (typeof address !== "string" || !viem().isAddress(address, { strict: false })) {
      throw new SigningInputError(
        `payload: EIP-7702 authorization address must be a 20-byte hex address, got ${JSON.stringify(address) ?? "nothing"}`,
      );
    }
    // viem types chainId and nonce as numbers but serializes bigints too (nonces may exceed 2^53).
    const chainId = integerField(authorization.chainId, "chainId");
    const nonce = integerField(authorization.nonce, "nonce");
    return decodeHex(
      viemUtils().hashAuthorization({ chainId: chainId as unknown as number, address, nonce: nonce as unknown as number }),
      "payload",
    );
  } catch (error) {
    if (error instanceof SigningInputError) throw error;
    throw new SigningInputError(`payload: ${(error as Error).message.split("\n")[0]}`);
  }
}

function messageBytes(payload: string, encoding: PayloadEncoding): Uint8Array {
  return encoding === "PAYLOAD_ENCODING_TEXT_UTF8" ? new TextEncoder().encode(payload) : decodeHex(payload, "payload");
}

/** What a raw payload signs, once decoded and hashed: the bytes themselves (Ed25519) or a 32-byte digest. */
export type RawPayloadMessage =
  | { scheme: "ed25519"; bytes: Uint8Array }
  | { scheme: "ecdsa"; curve: "CURVE_SECP256K1" | "CURVE_P256"; digest: Uint8Array }
  | { scheme: "schnorr"; taproot: boolean; digest: Uint8Array };

/**
 * Decodes and hashes a raw payload as sign_raw_payload does, for a key of this curve (and address format),
 * without a private key: every refusal of the input is raised here, and signing what it answers cannot fail.
 *
 * Combinations: Ed25519 takes HEXADECIMAL or TEXT_UTF8 with HASH_FUNCTION_NOT_APPLICABLE only (the
 * API: "must be set to HASH_FUNCTION_NOT_APPLICABLE for EdDSA/ed25519"); the other curves take
 * NO_OP (payload is the 32-byte digest), SHA256 or KECCAK256. EIP712 and EIP7702_AUTHORIZATION
 * payloads are hashed by their own rules: HASH_FUNCTION_NO_OP (what @turnkey/viem and
 * @turnkey/ethers send) or KECCAK256 (the hash those rules end with) give that digest, never a
 * second hash; SHA256 is refused.
 */
export function rawPayloadMessage(
  key: Pick<SigningKey, "curve" | "addressFormat">,
  payload: string,
  encoding: PayloadEncoding,
  hashFunction: HashFunction,
): RawPayloadMessage {
  if (key.curve === "CURVE_ED25519") {
    if (hashFunction !== "HASH_FUNCTION_NOT_APPLICABLE") {
      throw new SigningInputError(`hashFunction: ed25519 signs the payload itself; use HASH_FUNCTION_NOT_APPLICABLE, not ${hashFunction}`);
    }
    if (encoding === "PAYLOAD_ENCODING_EIP712" || encoding === "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION") {
      throw new SigningInputError(`encoding: ${encoding} is for secp256k1 (Ethereum) keys, not ed25519`);
    }
    return { scheme: "ed25519", bytes: messageBytes(payload, encoding) };
  }
  if (hashFunction === "HASH_FUNCTION_NOT_APPLICABLE") {
    throw new SigningInputError(`hashFunction: HASH_FUNCTION_NOT_APPLICABLE is only for ed25519 keys; this key is ${key.curve}`);
  }
  let digest: Uint8Array;
  if (encoding === "PAYLOAD_ENCODING_EIP712" || encoding === "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION") {
    if (hashFunction === "HASH_FUNCTION_SHA256")
      throw new SigningInputError(`hashFunction: ${encoding} payloads are hashed by their own rules; use HASH_FUNCTION_NO_OP`);
    digest = structuredDigest(payload, encoding);
  } else {
    const bytes = messageBytes(payload, encoding);
    if (hashFunction === "HASH_FUNCTION_SHA256") digest = sha256(bytes);
    else if (hashFunction === "HASH_FUNCTION_KECCAK256") digest = keccak_256(bytes);
    else digest = bytes;
    if (digest.length !== 32)
      throw new SigningInputError(`payload: HASH_FUNCTION_NO_OP needs a 32-byte digest, got ${digest.length} bytes`);
  }
  const schnorr = key.curve === "CURVE_SECP256K1" ? schnorrMode(key.addressFormat) : undefined;
  if (schnorr) return { scheme: "schnorr", taproot: schnorr === "taproot", digest };
  return { scheme: "ecdsa", curve: key.curve, digest };
}

/** Signs what rawPayloadMessage answered: ECDSA over the digest, Ed25519 over the bytes, or (P2TR / Spark) Schnorr. */
export function signRawPayloadMessage(message: RawPayloadMessage, privateKey: Uint8Array): RawSignature {
  if (message.scheme === "ed25519") return signEd25519(message.bytes, privateKey);
  if (message.scheme === "schnorr") return signSchnorr(message.digest, privateKey, message.taproot);
  return signEcdsa(message.curve, message.digest, privateKey);
}

/**
 * Signs a raw payload as sign_raw_payload does: decode by `encoding`, hash by `hashFunction` (rawPayloadMessage),
 * then ECDSA (secp256k1, P-256) over the 32-byte digest, Ed25519 over the bytes themselves, or Schnorr
 * over the digest for secp256k1 keys named by a P2TR (tweaked) or Spark (untweaked) address.
 */
export function signRawPayload(key: SigningKey, payload: string, encoding: PayloadEncoding, hashFunction: HashFunction): RawSignature {
  return signRawPayloadMessage(rawPayloadMessage(key, payload, encoding, hashFunction), key.privateKey);
}
