import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { hashTypedData, type TypedDataDefinition } from "viem";
import { hashAuthorization } from "viem/utils";
import type { Curve } from "../hd/derive.js";
import { signEcdsa, signEd25519, signSchnorr, type RawSignature } from "./curves.js";
import { decodeHex, SigningInputError } from "./errors.js";

export { SigningInputError } from "./errors.js";
export type { RawSignature } from "./curves.js";

export const PAYLOAD_ENCODINGS = ["PAYLOAD_ENCODING_HEXADECIMAL", "PAYLOAD_ENCODING_TEXT_UTF8", "PAYLOAD_ENCODING_EIP712", "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION"] as const;
export type PayloadEncoding = (typeof PAYLOAD_ENCODINGS)[number];
export const HASH_FUNCTIONS = ["HASH_FUNCTION_NO_OP", "HASH_FUNCTION_SHA256", "HASH_FUNCTION_KECCAK256", "HASH_FUNCTION_NOT_APPLICABLE"] as const;
export type HashFunction = (typeof HASH_FUNCTIONS)[number];

export interface SigningKey {
  curve: Curve;
  privateKey: Uint8Array;
  /** The format of the address the key was named by: Bitcoin P2TR signs tweaked Schnorr, Spark plain Schnorr. */
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

/** The EIP-712 or EIP-7702 digest a structured payload stands for (hashFunction must not add a hash). */
function structuredDigest(payload: string, encoding: "PAYLOAD_ENCODING_EIP712" | "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION"): Uint8Array {
  try {
    if (encoding === "PAYLOAD_ENCODING_EIP712") {
      return decodeHex(hashTypedData(parseJson(payload, "EIP-712 typed data") as unknown as TypedDataDefinition), "payload");
    }
    const authorization = parseJson(payload, "an EIP-7702 authorization {chainId, address, nonce}");
    const address = (authorization.address ?? authorization.contractAddress) as `0x${string}`;
    return decodeHex(hashAuthorization({ chainId: Number(authorization.chainId), address, nonce: Number(authorization.nonce) }), "payload");
  } catch (error) {
    if (error instanceof SigningInputError) throw error;
    throw new SigningInputError(`payload: ${(error as Error).message.split("\n")[0]}`);
  }
}

function messageBytes(payload: string, encoding: PayloadEncoding): Uint8Array {
  return encoding === "PAYLOAD_ENCODING_TEXT_UTF8" ? new TextEncoder().encode(payload) : decodeHex(payload, "payload");
}

/**
 * Signs a raw payload as sign_raw_payload does: decode by `encoding`, hash by `hashFunction`, then
 * ECDSA (secp256k1, P-256) over the 32-byte digest, Ed25519 over the bytes themselves, or Schnorr
 * for keys named by a P2TR or Spark address. EIP-712 and EIP-7702 payloads are hashed by their own
 * rules; their hashFunction must be NO_OP (or KECCAK256, which those rules use).
 */
export function signRawPayload(key: SigningKey, payload: string, encoding: PayloadEncoding, hashFunction: HashFunction): RawSignature {
  if (key.curve === "CURVE_ED25519") {
    if (hashFunction !== "HASH_FUNCTION_NOT_APPLICABLE" && hashFunction !== "HASH_FUNCTION_NO_OP") {
      throw new SigningInputError(`hashFunction: Ed25519 signs the payload itself; use HASH_FUNCTION_NOT_APPLICABLE, not ${hashFunction}`);
    }
    if (encoding === "PAYLOAD_ENCODING_EIP712" || encoding === "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION") {
      throw new SigningInputError(`encoding: ${encoding} is for secp256k1 (Ethereum) keys, not Ed25519`);
    }
    return signEd25519(messageBytes(payload, encoding), key.privateKey);
  }
  if (hashFunction === "HASH_FUNCTION_NOT_APPLICABLE") {
    throw new SigningInputError(`hashFunction: HASH_FUNCTION_NOT_APPLICABLE is only for Ed25519 keys; this key is ${key.curve}`);
  }
  let digest: Uint8Array;
  if (encoding === "PAYLOAD_ENCODING_EIP712" || encoding === "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION") {
    if (hashFunction === "HASH_FUNCTION_SHA256") throw new SigningInputError(`hashFunction: ${encoding} payloads are hashed by their own rules; use HASH_FUNCTION_NO_OP`);
    digest = structuredDigest(payload, encoding);
  } else {
    const bytes = messageBytes(payload, encoding);
    if (hashFunction === "HASH_FUNCTION_SHA256") digest = sha256(bytes);
    else if (hashFunction === "HASH_FUNCTION_KECCAK256") digest = keccak_256(bytes);
    else digest = bytes;
    if (digest.length !== 32) throw new SigningInputError(`payload: HASH_FUNCTION_NO_OP signs a 32-byte digest as given, but the payload has ${digest.length} bytes`);
  }
  const schnorr = key.curve === "CURVE_SECP256K1" ? schnorrMode(key.addressFormat) : undefined;
  if (schnorr) return signSchnorr(digest, key.privateKey, schnorr === "taproot");
  return signEcdsa(key.curve, digest, key.privateKey);
}
