import { invalidArgument } from "../errors.js";
import { verifyApiKeySignature } from "./stamp.js";

/**
 * A client signature binds a verification token to what it is used for: the key named in the token
 * (`public_key`, chosen by the client when it verified the OTP) signs a JSON message naming the token id,
 * the usage and its parameters, e.g. {"login":{"publicKey":"02…"},"tokenId":"…","type":"USAGE_TYPE_LOGIN"}.
 * @turnkey/core makes these with its API-key stamper: DER ECDSA P-256 over sha256(message), as hex.
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
  if (clientSignature.publicKey.toLowerCase() !== expected.publicKey.toLowerCase()) {
    throw refuse(`signed by ${clientSignature.publicKey}, but the verification token is bound to ${expected.publicKey}`);
  }
  const valid = verifyApiKeySignature(
    { kind: "api-key", scheme: "SIGNATURE_SCHEME_TK_API_P256", publicKey: clientSignature.publicKey, signature: clientSignature.signature },
    Buffer.from(clientSignature.message, "utf8"),
  );
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
