import { p256 } from "@noble/curves/nist.js";
import {
  decryptCredentialBundle,
  decryptExportBundle,
  encryptPrivateKeyToBundle,
  encryptWalletToBundle,
  generateP256KeyPair,
} from "@turnkey/crypto";
import { describe, expect, it } from "vitest";
import { credentialBundle, exportBundle, openEncryptedBundle, parseTargetPublicKey } from "../../src/crypto/bundles.js";
import { signBundle } from "../../src/crypto/signed-bundle.js";
import { serverKeyFromSecret } from "../../src/crypto/server-keys.js";

describe("bundles, opened by the unchanged @turnkey/crypto", () => {
  it("credential bundles decrypt with decryptCredentialBundle", async () => {
    const target = generateP256KeyPair();
    const secret = p256.utils.randomSecretKey();
    const bundle = await credentialBundle(secret, parseTargetPublicKey(target.publicKeyUncompressed));
    expect(decryptCredentialBundle(bundle, target.privateKey)).toBe(Buffer.from(secret).toString("hex"));
  });

  it("signed export bundles decrypt with decryptExportBundle given the signer key, and not without it", async () => {
    const target = generateP256KeyPair();
    const signer = serverKeyFromSecret(p256.utils.randomSecretKey());
    const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
    const bundle = await exportBundle(
      new TextEncoder().encode(mnemonic),
      parseTargetPublicKey(target.publicKeyUncompressed),
      "org-1",
      signer,
    );
    const opened = await decryptExportBundle({
      exportBundle: bundle,
      embeddedKey: target.privateKey,
      organizationId: "org-1",
      returnMnemonic: true,
      dangerouslyOverrideSignerPublicKey: signer.publicKeyHex,
    });
    expect(opened).toBe(mnemonic);
    await expect(
      decryptExportBundle({ exportBundle: bundle, embeddedKey: target.privateKey, organizationId: "org-1", returnMnemonic: true }),
    ).rejects.toThrow();
    await expect(
      decryptExportBundle({
        exportBundle: bundle,
        embeddedKey: target.privateKey,
        organizationId: "org-2",
        returnMnemonic: true,
        dangerouslyOverrideSignerPublicKey: signer.publicKeyHex,
      }),
    ).rejects.toThrow();
  });

  it("opens what encryptWalletToBundle and encryptPrivateKeyToBundle seal to a signed import bundle", async () => {
    const signer = serverKeyFromSecret(p256.utils.randomSecretKey());
    const importKey = p256.utils.randomSecretKey();
    const importBundle = signBundle(
      { organizationId: "org-1", userId: "user-1", targetPublic: Buffer.from(p256.getPublicKey(importKey, false)).toString("hex") },
      signer,
    );
    const mnemonic = "legal winner thank year wave sausage worth useful legal winner thank yellow";
    const sealedWallet = await encryptWalletToBundle({
      mnemonic,
      importBundle,
      userId: "user-1",
      organizationId: "org-1",
      dangerouslyOverrideSignerPublicKey: signer.publicKeyHex,
    });
    expect(new TextDecoder().decode(await openEncryptedBundle(sealedWallet, importKey))).toBe(mnemonic);

    const privateKey = "a".repeat(64);
    const sealedKey = await encryptPrivateKeyToBundle({
      privateKey,
      keyFormat: "HEXADECIMAL",
      importBundle,
      userId: "user-1",
      organizationId: "org-1",
      dangerouslyOverrideSignerPublicKey: signer.publicKeyHex,
    });
    expect(Buffer.from(await openEncryptedBundle(sealedKey, importKey)).toString("hex")).toBe(privateKey);

    await expect(openEncryptedBundle(sealedKey, p256.utils.randomSecretKey())).rejects.toThrow(/cannot be decrypted/);
    await expect(openEncryptedBundle("{}", importKey)).rejects.toThrow(/encappedPublic/);
    await expect(
      encryptWalletToBundle({
        mnemonic,
        importBundle,
        userId: "user-2",
        organizationId: "org-1",
        dangerouslyOverrideSignerPublicKey: signer.publicKeyHex,
      }),
    ).rejects.toThrow();
  });

  it("refuses compressed or malformed target keys", () => {
    const target = generateP256KeyPair();
    expect(() => parseTargetPublicKey(target.publicKey)).toThrow(/uncompressed P-256/);
    expect(() => parseTargetPublicKey("04" + "00".repeat(64))).toThrow(/uncompressed P-256/);
  });
});
