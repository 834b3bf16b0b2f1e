import { p256 } from "@noble/curves/nist.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { ServerKey } from "./server-keys.js";

/**
 * The signed envelope of export, import and OTP target bundles: `data` is the hex of a JSON object, signed (ECDSA
 * P-256 over sha256 of those bytes, DER) by the server's signer key, whose uncompressed public key is
 * `enclaveQuorumPublic` — what @turnkey/crypto verifies before trusting the data. No Node APIs: the export and import
 * frames verify envelopes in the browser.
 */
export function signBundle(content: Record<string, string>, signer: Pick<ServerKey, "signDer" | "publicKeyHex">): string {
  const data = new TextEncoder().encode(JSON.stringify(content));
  return JSON.stringify({
    version: "v1.0.0",
    data: bytesToHex(data),
    dataSignature: bytesToHex(signer.signDer(data)),
    enclaveQuorumPublic: signer.publicKeyHex,
  });
}

export class SignedBundleError extends Error {}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * The signed data of an envelope, once its signer is `signerPublicKey` (uncompressed hex) and its signature
 * verifies; anything else throws a SignedBundleError saying what was wrong.
 */
export function openSignedBundle(bundle: string, signerPublicKey: string): Record<string, unknown> {
  let envelope: unknown;
  try {
    envelope = JSON.parse(bundle);
  } catch {
    throw new SignedBundleError("the bundle is not JSON");
  }
  const { version, data, dataSignature, enclaveQuorumPublic } = (envelope ?? {}) as Record<string, unknown>;
  if (version !== "v1.0.0") throw new SignedBundleError(`unsupported bundle version ${JSON.stringify(version)}`);
  if (typeof data !== "string" || !HEX.test(data)) throw new SignedBundleError('the bundle has no hex "data"');
  if (typeof dataSignature !== "string" || !HEX.test(dataSignature)) throw new SignedBundleError('the bundle has no hex "dataSignature"');
  if (typeof enclaveQuorumPublic !== "string" || enclaveQuorumPublic.toLowerCase() !== signerPublicKey.toLowerCase()) {
    throw new SignedBundleError(
      `the bundle is signed by ${String(enclaveQuorumPublic)}, not by this server's signer key ${signerPublicKey}`,
    );
  }
  const signedBytes = hexToBytes(data);
  let verified = false;
  try {
    verified = p256.verify(hexToBytes(dataSignature), signedBytes, hexToBytes(signerPublicKey), { format: "der", lowS: false });
  } catch {
    verified = false;
  }
  if (!verified) throw new SignedBundleError("the bundle's signature does not verify");
  let content: unknown;
  try {
    content = JSON.parse(new TextDecoder().decode(signedBytes));
  } catch {
    throw new SignedBundleError("the bundle's signed data is not JSON");
  }
  if (typeof content !== "object" || content === null || Array.isArray(content))
    throw new SignedBundleError("the bundle's signed data is not an object");
  return content as Record<string, unknown>;
}
