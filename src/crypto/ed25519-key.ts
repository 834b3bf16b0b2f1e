import { createPrivateKey, createPublicKey, sign } from "node:crypto";

/** PKCS#8 of an Ed25519 private key (RFC 8410) up to its 32-byte seed. */
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface Ed25519Key {
  readonly publicKey: Uint8Array;
  /** The RFC 8032 signature of `message` (deterministic: the same bytes @noble/curves gives). */
  sign(message: Uint8Array): Uint8Array;
}

/**
 * An Ed25519 key from its 32-byte secret (RFC 8032's private key), in node:crypto: the server's own Ed25519 keys (audit
 * checkpoints, webhook deliveries) are opened at every start, and @noble/curves' first Ed25519 operation in a process
 * builds its precomputed tables. Server-side only: signed-note.ts, which the console also runs in the browser, signs
 * with @noble.
 */
export function ed25519Key(secret: Uint8Array): Ed25519Key {
  if (secret.length !== 32) throw new Error(`an Ed25519 secret key is 32 bytes, not ${secret.length}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secret]), format: "der", type: "pkcs8" });
  const { x } = createPublicKey(privateKey).export({ format: "jwk" });
  return {
    publicKey: new Uint8Array(Buffer.from(x!, "base64url")),
    sign: (message) => new Uint8Array(sign(null, message, privateKey)),
  };
}
