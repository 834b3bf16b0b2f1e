import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { ed25519Key } from "./ed25519-key.js";
import type { KeyEncryptionKey } from "./key-encryption.js";
import type { Queryable } from "../store/database.js";
import { loadOrCreateServerSecret } from "./server-keys.js";

/** The Ed25519 key webhook deliveries are signed with; its public half is served as a JWKS. */
export interface WebhookSigningKey {
  keyId: string;
  publicKey: Uint8Array;
  /** Hex Ed25519 signature over `v1.ed25519.<keyId>.<timestampMs>.<eventId>.` ‖ body. */
  sign(timestampMs: string, eventId: string, body: Uint8Array): string;
}

const NAME = "webhook-signing";

export async function loadOrCreateWebhookKey(db: Queryable, kek: KeyEncryptionKey): Promise<WebhookSigningKey> {
  const secret = await loadOrCreateServerSecret(db, kek, NAME, () => ed25519.utils.randomSecretKey());
  const key = ed25519Key(secret);
  const keyId = `strongroom-${bytesToHex(sha256(key.publicKey)).slice(0, 16)}`;
  return {
    keyId,
    publicKey: key.publicKey,
    sign(timestampMs, eventId, body) {
      const prefix = new TextEncoder().encode(`v1.ed25519.${keyId}.${timestampMs}.${eventId}.`);
      return bytesToHex(key.sign(new Uint8Array([...prefix, ...body])));
    },
  };
}

/** GET /public/v1/discovery/webhooks/jwks, in the documented shape. */
export function webhookJwks(key: WebhookSigningKey): Record<string, unknown> {
  return {
    keys: [
      {
        kid: key.keyId,
        kty: "OKP",
        crv: "Ed25519",
        alg: "EdDSA",
        use: "sig",
        x: Buffer.from(key.publicKey).toString("base64url"),
        turnkey_signature_algorithm: "ed25519",
        turnkey_signature_version: "v1",
      },
    ],
  };
}
