import type { KeyEncryptionKey } from "./crypto/key-encryption.js";
import type { ServerKey } from "./crypto/server-keys.js";
import type { Database } from "./store/database.js";

/** What handlers may use besides their transaction: plain objects, no container. */
export interface Services {
  db: Database;
  kek: KeyEncryptionKey;
  signer: ServerKey;
  /** A P-256 key of its own that clients encrypt secrets to (and the first half of app proofs' key). */
  encryptionKey: ServerKey;
  clock: () => Date;
}
