import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The key-encryption key (KEK): every mnemonic, private key and server key is sealed through it with AES-256-GCM
 * before it reaches the database. A server's is the keyring (src/crypto/keyring/keyring.ts): data keys by version,
 * themselves wrapped by the seal provider (STRONGROOM_SEAL). The file provider's root key comes from
 * STRONGROOM_MASTER_KEY (64 hex characters or base64 of 32 bytes) or, in embedded mode, from `<dataDir>/master.key`
 * (mode 0600), created on first start.
 */
export interface KeyEncryptionKey {
  /** Seals `plaintext`; `context` (e.g. "wallet:<id>") is bound as additional data. */
  seal(plaintext: Uint8Array, context: string): string;
  open(sealed: string, context: string): Uint8Array;
}

const VERSION = "v1";

export function parseMasterKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== 32) {
    throw new Error("STRONGROOM_MASTER_KEY must be 32 bytes, as 64 hex characters or base64");
  }
  return key;
}

/** The key file in the data directory, created on first use; a store kept in memory gets a key that lives as long. */
export function loadOrCreateKeyFile(dataDir: string): Buffer {
  if (dataDir.startsWith("memory://")) return randomBytes(32);
  const path = join(dataDir, "master.key");
  if (existsSync(path)) return parseMasterKey(readFileSync(path, "utf8"));
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(path, key.toString("hex") + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(path, 0o600);
  return key;
}

/** AES-256-GCM under `key` with `aad` bound: iv (12 bytes) ‖ ciphertext ‖ tag (16 bytes). */
export function aesGcmSeal(key: Uint8Array, plaintext: Uint8Array, aad: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/** Opens what aesGcmSeal made; throws when the key, the additional data or the bytes are not those it was sealed with. */
export function aesGcmOpen(key: Uint8Array, bytes: Uint8Array, aad: string): Uint8Array {
  if (bytes.length < 28) throw new Error("sealed bytes too short");
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return new Uint8Array(Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]));
}

/**
 * A key-encryption key that seals in the first format, `v1:<base64>`, straight under `key`: what every store held
 * before the keyring (src/crypto/keyring/), and what the keyring still opens, under the file key, until the
 * background re-seal has moved each such value into the keyring.
 */
export function createKeyEncryptionKey(key: Buffer): KeyEncryptionKey {
  if (key.length !== 32) throw new Error("the key-encryption key must be 32 bytes");
  return {
    seal(plaintext, context) {
      return `${VERSION}:${aesGcmSeal(key, plaintext, context).toString("base64")}`;
    },
    open(sealed, context) {
      const [version, payload] = sealed.split(":");
      if (version !== VERSION || !payload) throw new Error("unknown sealed-secret format");
      try {
        return aesGcmOpen(key, Buffer.from(payload, "base64"), context);
      } catch {
        throw new Error("a sealed secret could not be opened: wrong key-encryption key (STRONGROOM_MASTER_KEY)?");
      }
    },
  };
}
