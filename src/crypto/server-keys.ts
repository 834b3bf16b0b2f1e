import { p256 } from "@noble/curves/nist.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { createECDH, createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto";
import type { Queryable } from "../store/database.js";
import type { KeyEncryptionKey } from "./key-encryption.js";

/**
 * A P-256 key the server holds itself. The signer key signs export bundles, app proofs, session
 * JWTs and verification tokens; SDK users pass its public half as `dangerouslyOverrideSignerPublicKey`.
 */
export interface ServerKey {
  /** Uncompressed SEC1 public key, lowercase hex (130 characters). */
  readonly publicKeyHex: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** ECDSA P-256 over SHA-256 of `data`, DER-encoded. */
  signDer(data: Uint8Array): Uint8Array;
  /** ECDSA P-256 over SHA-256 of `data`, raw r‖s (64 bytes). */
  signRaw(data: Uint8Array): Uint8Array;
  /** The 32-byte private scalar, for HPKE decryption to this key. Never log or return it. */
  readonly secret: Uint8Array;
}

/**
 * A secret the server keeps in server_secrets, sealed under the key-encryption key with context `server-key:<name>`
 * (so `strongroom rekey` re-seals it with the rest), made by `generate` the first time it is asked for.
 */
export async function loadOrCreateServerSecret(
  db: Queryable,
  kek: KeyEncryptionKey,
  name: string,
  generate: () => Uint8Array,
): Promise<Uint8Array> {
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
  if (!row) throw new Error(`the server key ${name} could not be stored`);
  return kek.open(row.sealed, context);
}

export async function loadOrCreateServerKey(db: Queryable, kek: KeyEncryptionKey, name: string): Promise<ServerKey> {
  return serverKeyFromSecret(await loadOrCreateServerSecret(db, kek, name, () => p256.utils.randomSecretKey()));
}

const HALF_ORDER = p256.Point.Fn.ORDER >> 1n;

/**
 * ECDSA P-256 over SHA-256 (node's native signer), normalized to low S, so that verifiers which insist
 * on it (noble's default, many wallets) accept every signature, not half of them.
 */
function lowS(data: Uint8Array, privateKey: KeyObject): Uint8Array {
  const raw = new Uint8Array(sign("sha256", data, { key: privateKey, dsaEncoding: "ieee-p1363" }));
  const signature = p256.Signature.fromBytes(raw, "compact");
  return signature.s > HALF_ORDER ? new p256.Signature(signature.r, p256.Point.Fn.ORDER - signature.s).toBytes("compact") : raw;
}

export function serverKeyFromSecret(secret: Uint8Array): ServerKey {
  // Native: @noble's first point multiplication builds its precomputed tables (about a quarter of a second at start).
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(secret);
  const publicKey = new Uint8Array(ecdh.getPublicKey(null, "uncompressed"));
  const jwk = {
    kty: "EC",
    crv: "P-256",
    d: Buffer.from(secret).toString("base64url"),
    x: Buffer.from(publicKey.subarray(1, 33)).toString("base64url"),
    y: Buffer.from(publicKey.subarray(33, 65)).toString("base64url"),
  };
  const privateKey = createPrivateKey({ key: jwk, format: "jwk" });
  return {
    publicKeyHex: bytesToHex(publicKey),
    privateKey,
    publicKey: createPublicKey(privateKey),
    secret,
    signDer: (data) => p256.Signature.fromBytes(lowS(data, privateKey), "compact").toBytes("der"),
    signRaw: (data) => lowS(data, privateKey),
  };
}
