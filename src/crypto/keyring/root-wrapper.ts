import { aesGcmOpen, aesGcmSeal } from "../key-encryption.js";

/**
 * What wraps the keyring's data keys: the seal provider's root (the file provider's key, the root key the Shamir
 * shares combine into, a key inside a PKCS#11 token, or an AWS KMS key). Each wrapped key is bound to its version.
 */
export interface RootWrapper {
  /** What wraps, stored beside each wrapped key (`keyring.wrapped_by`): `file`, `shamir`, `pkcs11:<token>/<key>` or `awskms:<key id>`. */
  readonly label: string;
  wrap(dataKey: Uint8Array, version: number): Promise<string>;
  unwrap(wrapped: string, version: number): Promise<Uint8Array>;
  /** Releases what the wrapper holds: a local key is overwritten, a token session or a KMS client closed. */
  close(): Promise<void>;
}

/** The additional data a data key is wrapped with: its version, so a wrapped key cannot stand in for another version. */
export const wrapContext = (version: number) => `strongroom-keyring:${version}`;

/** A root key held in this process's memory (the file key, or the key the Shamir shares combine into): AES-256-GCM. */
export function localRootWrapper(rootKey: Uint8Array, label: "file" | "shamir"): RootWrapper {
  const key = Uint8Array.from(rootKey);
  return {
    label,
    wrap: async (dataKey, version) => aesGcmSeal(key, dataKey, wrapContext(version)).toString("base64"),
    async unwrap(wrapped, version) {
      try {
        return aesGcmOpen(key, Buffer.from(wrapped, "base64"), wrapContext(version));
      } catch {
        throw new Error(`key version ${version} could not be opened with the ${label === "file" ? "master key" : "root key"}`);
      }
    },
    close: async () => void key.fill(0),
  };
}
