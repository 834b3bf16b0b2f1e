import { bytesToHex } from "@noble/hashes/utils.js";
import type { ServerKey } from "./server-keys.js";

/** An app proof as the API returns it and @turnkey/crypto's verifyAppProofSignature checks it. */
export interface AppProof {
  scheme: "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256";
  /** 130 bytes, hex: the encryption key ‖ the signing key, both uncompressed P-256. */
  publicKey: string;
  proofPayload: string;
  /** Raw r‖s (64 bytes), hex, ECDSA P-256 over SHA-256 of the payload's UTF-8 bytes. */
  signature: string;
}

export function signAppProof(payload: Record<string, unknown>, keys: { signer: ServerKey; encryptionKey: ServerKey }): AppProof {
  const proofPayload = JSON.stringify(payload);
  return {
    scheme: "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256",
    publicKey: `${keys.encryptionKey.publicKeyHex}${keys.signer.publicKeyHex}`,
    proofPayload,
    signature: bytesToHex(keys.signer.signRaw(new TextEncoder().encode(proofPayload))),
  };
}
