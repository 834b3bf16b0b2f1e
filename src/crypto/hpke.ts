import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core";

/**
 * HPKE as the API's bundles use it: base mode (RFC 9180) with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and
 * AES-256-GCM, info "turnkey_hpke", and — unlike plain HPKE — the encapsulated key and the recipient key (both
 * uncompressed) as AEAD additional data. No Node APIs: the export and import frames run this in the browser.
 */
const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const INFO = new TextEncoder().encode("turnkey_hpke");

/** The bytes in an ArrayBuffer of their own (a Buffer's `.buffer` may be a shared pool). */
const own = (bytes: Uint8Array): ArrayBuffer => Uint8Array.from(bytes).buffer;

const concat = (a: Uint8Array, b: Uint8Array) => {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
};

/** Encrypts `plaintext` to the uncompressed P-256 key `target`; returns the uncompressed encapsulated key and the ciphertext. */
export async function hpkeSeal(
  plaintext: Uint8Array,
  target: Uint8Array,
): Promise<{ encapsulatedKey: Uint8Array; ciphertext: Uint8Array }> {
  const recipientPublicKey = await suite.kem.deserializePublicKey(own(target));
  const sender = await suite.createSenderContext({ recipientPublicKey, info: own(INFO) });
  const encapsulatedKey = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(await sender.seal(own(plaintext), own(concat(encapsulatedKey, target))));
  return { encapsulatedKey, ciphertext };
}

/** Opens what hpkeSeal made for the recipient whose raw P-256 private key and uncompressed public key are given; throws if it does not authenticate. */
export async function hpkeOpen(
  sealed: { encapsulatedKey: Uint8Array; ciphertext: Uint8Array },
  recipient: { privateKey: Uint8Array; publicKey: Uint8Array },
): Promise<Uint8Array> {
  const recipientKey = await suite.kem.importKey("raw", own(recipient.privateKey), false);
  const context = await suite.createRecipientContext({
    recipientKey,
    enc: own(sealed.encapsulatedKey),
    info: own(INFO),
  });
  return new Uint8Array(await context.open(own(sealed.ciphertext), own(concat(sealed.encapsulatedKey, recipient.publicKey))));
}
