import { ed25519 } from "@noble/curves/ed25519.js";
import { randomBytes, createHash, createHmac } from "node:crypto";
import type { Queryable } from "../store/database.js";
import type { KeyEncryptionKey } from "./key-encryption.js";
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

async function loadOrCreateSecret(db: Queryable, kek: KeyEncryptionKey, name: string, generate: () => Uint8Array): Promise<Uint8Array> {
  const context = `server-key:${name}`;
  const read = async () => (await db.query<{ sealed: string }>("SELECT sealed FROM server_secrets WHERE name = $1", [name]))[0];
  let row = await read();
  if (!row) {
    // Several processes may start at once: the first insert wins and everyone reads it back.
    await db.query("INSERT INTO server_secrets (name, sealed, created_at) VALUES ($1, $2, now()) ON CONFLICT (name) DO NOTHING", [
      name,
      kek.seal(generate(), context),
    ]);
    row = await read();
  }
  if (!row) throw new Error(`the audit key ${name} could not be stored`);
  return kek.open(row.sealed, context);
}

export const auditOrigin = (publicKey: Uint8Array): string =>
  `strongroom.audit/${createHash("sha256").update(publicKey).digest("hex").slice(0, 16)}`;

export async function loadOrCreateAuditKeys(db: Queryable, kek: KeyEncryptionKey): Promise<AuditKeys> {
  const secret = await loadOrCreateSecret(db, kek, SIGNING, () => ed25519.utils.randomSecretKey());
  const hmacKey = await loadOrCreateSecret(db, kek, HMAC, () => new Uint8Array(randomBytes(32)));
  const publicKey = ed25519.getPublicKey(secret);
  const origin = auditOrigin(publicKey);
  return {
    origin,
    publicKey,
    verifierKey: encodeVerifierKey(origin, publicKey),
    signNote: (text) => signNote(text, origin, secret),
    hmac: (value) => `hmac-sha256:${createHmac("sha256", hmacKey).update(value, "utf8").digest("hex")}`,
  };
}
