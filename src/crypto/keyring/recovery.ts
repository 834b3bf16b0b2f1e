import { p256 } from "@noble/curves/nist.js";
import { hpkeOpen, hpkeSeal } from "../hpke.js";
import { combineShares, splitSecret, type ShareText } from "./shares.js";

/**
 * The recovery key: a P-256 key pair whose private half exists only as Shamir shares, printed once by `init`
 * (--recovery-shares, --recovery-threshold). Its public half stays in the store (keyring_seal), so every data key
 * version — later rotations included — is wrapped to it (HPKE) beside the seal provider's wrapping, without the
 * shares. With a quorum of the shares, `strongroom keyring recover` opens the data keys when the HSM or KMS key is
 * lost, and wraps them under another provider.
 */
export interface RecoveryKey {
  publicKeyHex: string;
  shares: ShareText[];
}

export async function createRecoveryKey(shares: number, threshold: number): Promise<RecoveryKey> {
  const privateKey = p256.utils.randomSecretKey();
  try {
    return {
      publicKeyHex: Buffer.from(p256.getPublicKey(privateKey, false)).toString("hex"),
      shares: await splitSecret(privateKey, shares, threshold),
    };
  } finally {
    privateKey.fill(0);
  }
}

/** version (4 bytes, big-endian) ‖ data key: the version is inside the sealed bytes, so a wrapped key cannot pose as another version. */
function withVersion(dataKey: Uint8Array, version: number): Uint8Array {
  const bytes = new Uint8Array(4 + dataKey.length);
  new DataView(bytes.buffer).setUint32(0, version);
  bytes.set(dataKey, 4);
  return bytes;
}

export async function wrapForRecovery(dataKey: Uint8Array, version: number, publicKeyHex: string): Promise<string> {
  const { encapsulatedKey, ciphertext } = await hpkeSeal(withVersion(dataKey, version), Buffer.from(publicKeyHex, "hex"));
  return Buffer.concat([encapsulatedKey, ciphertext]).toString("base64");
}

/** The recovery private key from a quorum of its shares, checked against the stored public half. */
export async function recoveryPrivateKey(shares: Uint8Array[], publicKeyHex: string): Promise<Uint8Array> {
  const privateKey = await combineShares(shares);
  let matches = false;
  try {
    matches = Buffer.from(p256.getPublicKey(privateKey, false)).toString("hex") === publicKeyHex;
  } catch {
    // not a scalar of the curve: the shares are wrong
  }
  if (!matches)
    throw new Error("the recovery shares given do not combine into this store's recovery key (a share is wrong, or from another store)");
  return privateKey;
}

export async function unwrapWithRecovery(
  wrapped: string,
  version: number,
  privateKey: Uint8Array,
  publicKeyHex: string,
): Promise<Uint8Array> {
  const bytes = Buffer.from(wrapped, "base64");
  const opened = await hpkeOpen(
    { encapsulatedKey: bytes.subarray(0, 65), ciphertext: bytes.subarray(65) },
    { privateKey, publicKey: Buffer.from(publicKeyHex, "hex") },
  );
  if (new DataView(opened.buffer, opened.byteOffset).getUint32(0) !== version)
    throw new Error(`the recovery wrapping of key version ${version} names another version`);
  return opened.slice(4);
}
