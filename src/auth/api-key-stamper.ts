import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";

/**
 * Stamps a request body the way @turnkey/api-key-stamper does: a DER ECDSA P-256 signature over
 * sha256(body), hex, inside base64url(JSON {publicKey, scheme, signature}) — the X-Stamp header value.
 * Strongroom uses it where it acts as a client of its own API (the auth proxy).
 */
export function stampWithApiKey(body: string, key: { publicKey: string; privateKey: Uint8Array }): string {
  const signature = p256.sign(sha256(new TextEncoder().encode(body)), key.privateKey, { prehash: false, format: "der" });
  const stamp = { publicKey: key.publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature: Buffer.from(signature).toString("hex") };
  return Buffer.from(JSON.stringify(stamp), "utf8").toString("base64url");
}

/** A fresh P-256 API key: the private scalar and its compressed public key as lowercase hex. */
export function generateApiKeyPair(): { publicKey: string; privateKey: Uint8Array } {
  const privateKey = p256.utils.randomSecretKey();
  return { privateKey, publicKey: Buffer.from(p256.getPublicKey(privateKey, true)).toString("hex") };
}
