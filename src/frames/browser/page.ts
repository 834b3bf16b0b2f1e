import { p256 } from "@noble/curves/nist.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

/** What the server put in the page: the signer key every bundle must be signed by, and the element for the secret. */
export function pageSetup<E extends HTMLElement>(): { signerPublicKey: string; secret: E } {
  const signerPublicKey = document.querySelector<HTMLMetaElement>('meta[name="strongroom-signer-public-key"]')?.content ?? "";
  const secret = document.getElementById("secret") as E | null;
  if (!/^04[0-9a-f]{128}$/.test(signerPublicKey) || !secret) throw new Error("this page was not served by Strongroom's frame route");
  return { signerPublicKey, secret };
}

/** A P-256 key pair that lives in this page's memory only. */
export function createEmbeddedKey(): { privateKey: Uint8Array; publicKey: Uint8Array; publicKeyHex: string } {
  const privateKey = p256.utils.randomSecretKey();
  const publicKey = p256.getPublicKey(privateKey, false);
  return { privateKey, publicKey, publicKeyHex: bytesToHex(publicKey) };
}

export function requireText(value: unknown, name: string): string {
  if (typeof value !== "string" || !value) throw new Error(`${name} is required`);
  return value;
}

export function hexField(content: Record<string, unknown>, name: string, pattern = /^(?:[0-9a-fA-F]{2})+$/): Uint8Array {
  const value = content[name];
  if (typeof value !== "string" || !pattern.test(value)) throw new Error(`the bundle's signed data has no valid "${name}"`);
  return hexToBytes(value);
}

export const UNCOMPRESSED_P256_HEX = /^04[0-9a-fA-F]{128}$/;
