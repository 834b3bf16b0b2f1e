import { hpkeOpen } from "../../crypto/hpke.js";
import { openSignedBundle } from "../../crypto/signed-bundle.js";
import { encodeExportedKey, keyFormatOf } from "./key-formats.js";
import { createEmbeddedKey, hexField, pageSetup, requireText, UNCOMPRESSED_P256_HEX } from "./page.js";
import { serveParent, type FrameRequest } from "./parent-channel.js";
import { applyStyles } from "./styles.js";

/**
 * The export page: it makes a key in memory, tells the parent its public half (the `targetPublicKey` of the export
 * activity), and shows the one bundle sealed to it — a mnemonic or a private key — inside the frame, where the
 * parent page cannot read it. The key is used once, then wiped.
 */
const { signerPublicKey, secret } = pageSetup<HTMLPreElement>();
let embeddedKey: ReturnType<typeof createEmbeddedKey> | undefined = createEmbeddedKey();
const publicKeyHex = embeddedKey.publicKeyHex;

async function openExportBundle(request: FrameRequest): Promise<Uint8Array> {
  const organizationId = requireText(request.organizationId, "organizationId");
  const content = openSignedBundle(requireText(request.value, "the export bundle"), signerPublicKey);
  if (content.organizationId !== organizationId)
    throw new Error(`the bundle is for organization ${String(content.organizationId)}, not ${organizationId}`);
  const sealed = {
    encapsulatedKey: hexField(content, "encappedPublic", UNCOMPRESSED_P256_HEX),
    ciphertext: hexField(content, "ciphertext"),
  };
  const key = embeddedKey;
  if (!key) throw new Error("this frame has already shown a bundle; open a new one");
  let plaintext: Uint8Array;
  try {
    plaintext = await hpkeOpen(sealed, key);
  } catch {
    throw new Error("the bundle was not sealed to this frame's key");
  }
  key.privateKey.fill(0);
  embeddedKey = undefined;
  return plaintext;
}

function show(text: string) {
  secret.textContent = text;
  secret.hidden = false;
}

serveParent(() => publicKeyHex, {
  INJECT_WALLET_EXPORT_BUNDLE: async (request) => {
    const wallet = new TextDecoder().decode(await openExportBundle(request));
    // The plaintext is the mnemonic, then a newline and the passphrase when the wallet has one: show the mnemonic.
    show(wallet.split("\n")[0]!);
    return { type: "BUNDLE_INJECTED", value: true };
  },
  INJECT_KEY_EXPORT_BUNDLE: async (request) => {
    const format = keyFormatOf(request.keyFormat);
    show(encodeExportedKey(await openExportBundle(request), format));
    return { type: "BUNDLE_INJECTED", value: true };
  },
  APPLY_SETTINGS: async (request) => {
    applyStyles(secret, request.value);
    return { type: "SETTINGS_APPLIED", value: true };
  },
});
