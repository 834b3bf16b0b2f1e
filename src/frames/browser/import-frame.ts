import { bytesToHex } from "@noble/hashes/utils.js";
import { hpkeSeal } from "../../crypto/hpke.js";
import { openSignedBundle } from "../../crypto/signed-bundle.js";
import { decodeImportedKey, keyFormatOf } from "./key-formats.js";
import { hexField, pageSetup, requireText, UNCOMPRESSED_P256_HEX } from "./page.js";
import { serveParent } from "./parent-channel.js";
import { applyStyles } from "./styles.js";

/**
 * The import page: the user types a mnemonic or a private key into the frame; the parent injects the signed import
 * bundle of init_import_wallet / init_import_private_key, and the frame hands back only the secret sealed to the
 * bundle's one-time key — the `encryptedBundle` of import_wallet / import_private_key.
 */
const { signerPublicKey, secret } = pageSetup<HTMLTextAreaElement>();
let target: Uint8Array | undefined;

const MNEMONIC_WORD_COUNTS = [12, 15, 18, 21, 24];

/** Seals what the user typed, read by `read`, to the injected bundle's key; then forgets both. */
async function sealTyped(read: () => Uint8Array): Promise<{ type: string; value: string }> {
  if (!target) throw new Error("no import bundle has been injected");
  const { encapsulatedKey, ciphertext } = await hpkeSeal(read(), target);
  secret.value = "";
  target = undefined;
  return {
    type: "ENCRYPTED_BUNDLE_EXTRACTED",
    value: JSON.stringify({ encappedPublic: bytesToHex(encapsulatedKey), ciphertext: bytesToHex(ciphertext) }),
  };
}

function typedMnemonic(): Uint8Array {
  const mnemonic = secret.value.trim().split(/\s+/).filter(Boolean).join(" ");
  if (!mnemonic) throw new Error("enter the seed phrase");
  const words = mnemonic.split(" ").length;
  if (!MNEMONIC_WORD_COUNTS.includes(words)) throw new Error(`a seed phrase has 12, 15, 18, 21 or 24 words; this one has ${words}`);
  return new TextEncoder().encode(mnemonic);
}

serveParent(() => "", {
  INJECT_IMPORT_BUNDLE: async (request) => {
    const organizationId = requireText(request.organizationId, "organizationId");
    const userId = requireText(request.userId, "userId");
    const content = openSignedBundle(requireText(request.value, "the import bundle"), signerPublicKey);
    if (content.organizationId !== organizationId)
      throw new Error(`the bundle is for organization ${String(content.organizationId)}, not ${organizationId}`);
    if (content.userId !== userId) throw new Error(`the bundle is for user ${String(content.userId)}, not ${userId}`);
    target = hexField(content, "targetPublic", UNCOMPRESSED_P256_HEX);
    return { type: "BUNDLE_INJECTED", value: true };
  },
  EXTRACT_WALLET_ENCRYPTED_BUNDLE: async () => sealTyped(typedMnemonic),
  EXTRACT_KEY_ENCRYPTED_BUNDLE: async (request) => sealTyped(() => decodeImportedKey(secret.value, keyFormatOf(request.keyFormat))),
  APPLY_SETTINGS: async (request) => {
    applyStyles(secret, request.value);
    return { type: "SETTINGS_APPLIED", value: true };
  },
});
