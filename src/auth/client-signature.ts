import { verify } from "node:crypto";
import { publicKeyObject, sameP256PublicKey } from "../crypto/public-keys.js";
import { invalidArgument } from "../errors.js";

/**
 * A client signature binds a verification token to what it is used for: the key named in the token
 * (`public_key`, chosen by the client when it verified the OTP) signs a JSON message naming the token id,
 * the usage and its parameters, e.g. {"login":{"publicKey":"02…"},"tokenId":"…","type":"USAGE_TYPE_LOGIN"}.
 * ECDSA P-256 over sha256(message), as hex, in either encoding the SDKs produce: @turnkey/core's
 * signUpWithOtp signs with SubtleCrypto and sends the raw 64-byte r‖s (IEEE P1363), while
 * @turnkey/api-key-stamper's signWithApiKey gives DER.
 */
export interface ClientSignature {
  publicKey: string;
  scheme: string;
  message: string;
  signature: string;
}

export function verifyClientSignature(
  clientSignature: ClientSignature,
  expected: { publicKey: string; tokenId: string; usage: "USAGE_TYPE_LOGIN" | "USAGE_TYPE_SIGNUP"; field: string },
): Record<string, unknown> {
  const refuse = (why: string) => invalidArgument(`${expected.field}: ${why}`, [{ field: expected.field, description: why }]);
  if (clientSignature.scheme !== "CLIENT_SIGNATURE_SCHEME_API_P256")
    throw refuse(`unsupported scheme ${JSON.stringify(clientSignature.scheme)}; use CLIENT_SIGNATURE_SCHEME_API_P256`);
  if (!sameP256PublicKey(clientSignature.publicKey, expected.publicKey)) {
    throw refuse(`signed by ${clientSignature.publicKey}, but the verification token is bound to ${expected.publicKey}`);
  }
  const valid = verifyP256Signature(clientSignature.publicKey, clientSignature.signature, Buffer.from(clientSignature.message, "utf8"));
  if (!valid) throw refuse("the signature does not verify over the message with the token's public key");
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(clientSignature.message) as Record<string, unknown>;
  } catch {
    throw refuse("the signed message is not JSON");
  }
  if (message.tokenId !== expected.tokenId)
    throw refuse(`the signed message names token ${JSON.stringify(message.tokenId)}, not ${expected.tokenId}`);
  if (message.type !== expected.usage) throw refuse(`the signed message is for ${JSON.stringify(message.type)}, not ${expected.usage}`);
  return message;
}

/**
 * A P-256 ECDSA signature over sha256(data), DER or raw r‖s hex. A 64-byte signature is read as r‖s first;
 * a DER encoding can be 64 bytes long too (short r and s), so it is then tried as DER.
 */
export function verifyP256Signature(publicKeyHex: string, signatureHex: string, data: Buffer): boolean {
  const key = publicKeyObject("p256", publicKeyHex);
  if (!key || !/^(?:[0-9a-fA-F]{2})+$/.test(signatureHex)) return false;
  const signature = Buffer.from(signatureHex, "hex");
  try {
    if (signature.length === 64 && verify("sha256", data, { key, dsaEncoding: "ieee-p1363" }, signature)) return true;
    return verify("sha256", data, key, signature);
  } catch {
    return false;
  }
}
