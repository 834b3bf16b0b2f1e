import { aesGcmOpen, aesGcmSeal, type KeyEncryptionKey } from "../key-encryption.js";

/**
 * Thrown by whatever needs a key while the process is sealed (after a seal on demand, until the process restarts).
 * Known by name in src/errors.ts: answered as 503 in the API's error shape.
 */
export class SealedError extends Error {
  constructor(what = "key material") {
    super(
      `Strongroom is sealed: ${what} is refused until it is unsealed ` +
        "(this process unseals when it restarts; GET /strongroom/v1/seal-status shows its state)",
    );
    this.name = "Sealed";
  }
}

/** `v2:<key version>:<base64 of iv ‖ ciphertext ‖ tag>`: a value sealed under one data key of the keyring. */
const KEYRING_VALUE = /^v2:(\d+):([A-Za-z0-9+/=]+)$/;

/** The keyring version a sealed value names, or "v1" for a value sealed straight under the file key (before the keyring). */
export function keyVersionOf(sealed: string): number | "v1" {
  if (sealed.startsWith("v1:")) return "v1";
  const match = KEYRING_VALUE.exec(sealed);
  if (!match) throw new Error("unknown sealed-secret format");
  return Number(match[1]);
}

/** The SQL LIKE pattern of the values sealed under `version`. */
export const sealedUnderPattern = (version: number) => `v2:${version}:%`;

export interface LoadedKeys {
  /** Data keys by version: every version the keyring holds. */
  keys: Map<number, Uint8Array>;
  /** The version new values are sealed under. */
  sealingVersion: number;
  /** Opens values sealed before the keyring (`v1:`): only with the file provider, whose key they were sealed under. */
  legacy?: KeyEncryptionKey;
}

/**
 * The key-encryption key of a running server: the keyring's data keys in memory. New values are sealed under the
 * sealing version; a value names the version it was sealed under, so values under older versions keep opening until
 * the background re-seal moves them and the version is retired. Sealed (no keys loaded), it refuses both ways.
 */
export class Keyring implements KeyEncryptionKey {
  #loaded: LoadedKeys | undefined;

  get sealed(): boolean {
    return this.#loaded === undefined;
  }

  /** The version new values are sealed under; undefined while sealed. */
  get sealingVersion(): number | undefined {
    return this.#loaded?.sealingVersion;
  }

  /** The versions held in memory. */
  versions(): number[] {
    return [...(this.#loaded?.keys.keys() ?? [])].sort((a, b) => a - b);
  }

  /** Replaces what is held (the keys no longer held are overwritten). */
  install(loaded: LoadedKeys): void {
    if (!loaded.keys.has(loaded.sealingVersion)) throw new Error(`the sealing version ${loaded.sealingVersion} is not among the keys`);
    const previous = this.#loaded;
    this.#loaded = loaded;
    for (const [version, key] of previous?.keys ?? []) if (loaded.keys.get(version) !== key) key.fill(0);
  }

  /** Forgets every key (overwriting the bytes it holds): sealed again. */
  drop(): void {
    for (const key of this.#loaded?.keys.values() ?? []) key.fill(0);
    this.#loaded = undefined;
  }

  seal(plaintext: Uint8Array, context: string): string {
    const loaded = this.#require("sealing a secret");
    const key = loaded.keys.get(loaded.sealingVersion)!;
    return `v2:${loaded.sealingVersion}:${aesGcmSeal(key, plaintext, context).toString("base64")}`;
  }

  open(sealed: string, context: string): Uint8Array {
    const loaded = this.#require("opening a secret");
    const version = keyVersionOf(sealed);
    if (version === "v1") {
      if (!loaded.legacy) throw new Error("a value sealed before the keyring (v1) needs the file provider's key to open");
      return loaded.legacy.open(sealed, context);
    }
    const key = loaded.keys.get(version);
    if (!key)
      throw new Error(`a sealed secret names key version ${version}, which this process does not hold (retired, or not yet loaded)`);
    try {
      return aesGcmOpen(key, Buffer.from(sealed.slice(sealed.indexOf(":", 3) + 1), "base64"), context);
    } catch {
      throw new Error(`a sealed secret could not be opened with key version ${version}: it was altered or bound to another owner`);
    }
  }

  #require(what: string): LoadedKeys {
    if (!this.#loaded) throw new SealedError(what);
    return this.#loaded;
  }
}
