import { ed25519 } from "@noble/curves/ed25519.js";
import { randomBytes, createHash, createHmac } from "node:crypto";
import type { Queryable } from "../store/database.js";
import type { KeyEncryptionKey } from "./key-encryption.js";
import { ed25519Key } from "./ed25519-key.js";
import { loadOrCreateServerSecret } from "./server-keys.js";
import { encodeVerifierKey, signNote } from "./signed-note.js";

/**
 * The audit log's own keys, sealed under the key-encryption key like the signer key (server_secrets, context
 * `server-key:<name>`, so `strongroom rekey` re-seals them with the rest): an Ed25519 key that signs the log's
 * checkpoints and nothing else, and a 32-byte HMAC key under which sensitive free text is written into entries
 * (as Vault's audit devices write it), so an entry can be matched against a value without holding it.
 */
export interface AuditKeys {
  /** The log's origin, which is also the checkpoint key's name: `strongroom.audit/<16 hex digits of SHA-256(public key)>`. */
  readonly origin: string;
  readonly publicKey: Uint8Array;
  /** The verifier key in the signed-note format: `<origin>+<key ID>+<base64 key>`. */
  readonly verifierKey: string;
  /** Signs a note text (a checkpoint) with the audit key. */
  signNote(text: string): string;
  /** `hmac-sha256:<hex>` of a value under the audit HMAC key. */
  hmac(value: string): string;
}

const SIGNING = "audit-signing";
const HMAC = "audit-hmac";

export const auditOrigin = (publicKey: Uint8Array): string =>
  `strongroom.audit/${createHash("sha256").update(publicKey).digest("hex").slice(0, 16)}`;

export async function loadOrCreateAuditKeys(db: Queryable, kek: KeyEncryptionKey): Promise<AuditKeys> {
  const secret = await loadOrCreateServerSecret(db, kek, SIGNING, () => ed25519.utils.randomSecretKey());
  const hmacKey = await loadOrCreateServerSecret(db, kek, HMAC, () => new Uint8Array(randomBytes(32)));
  const { publicKey } = ed25519Key(secret);
  const origin = auditOrigin(publicKey);
  return {
    origin,
    publicKey,
    verifierKey: encodeVerifierKey(origin, publicKey),
    signNote: (text) => signNote(text, origin, secret),
    hmac: (value) => `hmac-sha256:${createHmac("sha256", hmacKey).update(value, "utf8").digest("hex")}`,
  };
}
