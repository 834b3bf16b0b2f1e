import { p256 } from "@noble/curves/nist.js";
import { decryptCredentialBundle, decryptExportBundle, generateP256KeyPair } from "@turnkey/crypto";
import { describe, expect, it } from "vitest";
import { credentialBundle, parseTargetPublicKey, signedBundle } from "../../src/crypto/bundles.js";
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
    const bundle = await signedBundle(new TextEncoder().encode(mnemonic), parseTargetPublicKey(target.publicKeyUncompressed), "org-1", signer);
    const opened = await decryptExportBundle({
      exportBundle: bundle,
      embeddedKey: target.privateKey,
      organizationId: "org-1",
      returnMnemonic: true,
      dangerouslyOverrideSignerPublicKey: signer.publicKeyHex,
    });
    expect(opened).toBe(mnemonic);
    await expect(decryptExportBundle({ exportBundle: bundle, embeddedKey: target.privateKey, organizationId: "org-1", returnMnemonic: true })).rejects.toThrow();
    await expect(
      decryptExportBundle({ exportBundle: bundle, embeddedKey: target.privateKey, organizationId: "org-2", returnMnemonic: true, dangerouslyOverrideSignerPublicKey: signer.publicKeyHex }),
    ).rejects.toThrow();
  });

  it("refuses compressed or malformed target keys", () => {
    const target = generateP256KeyPair();
    expect(() => parseTargetPublicKey(target.publicKey)).toThrow(/uncompressed P-256/);
    expect(() => parseTargetPublicKey("04" + "00".repeat(64))).toThrow(/uncompressed P-256/);
  });
});
