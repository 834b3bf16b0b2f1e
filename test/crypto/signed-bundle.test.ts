import { p256 } from "@noble/curves/nist.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { decryptExportBundle, generateP256KeyPair } from "@turnkey/crypto";
import { describe, expect, it } from "vitest";
import { exportBundle } from "../../src/crypto/bundles.js";
import { hpkeOpen } from "../../src/crypto/hpke.js";
import { serverKeyFromSecret } from "../../src/crypto/server-keys.js";
import { openSignedBundle, signBundle } from "../../src/crypto/signed-bundle.js";

/** What the export and import frames check before they trust a bundle, and the HPKE they open it with. */
describe("signed bundles as the frames open them", () => {
  const signer = serverKeyFromSecret(p256.utils.randomSecretKey());
  const organizationId = "4b7b4c4c-9c39-4bb5-8b39-8a8c8d4f3e21";

  it("opens an export bundle exactly as @turnkey/crypto's decryptExportBundle does", async () => {
    const target = generateP256KeyPair();
    const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
    const bundle = await exportBundle(
      new TextEncoder().encode(mnemonic),
      p256.getPublicKey(Buffer.from(target.privateKey, "hex"), false),
      organizationId,
      signer,
    );
    const oracle = await decryptExportBundle({
      exportBundle: bundle,
      embeddedKey: target.privateKey,
      organizationId,
      returnMnemonic: true,
      dangerouslyOverrideSignerPublicKey: signer.publicKeyHex,
    });
    const content = openSignedBundle(bundle, signer.publicKeyHex);
    expect(content.organizationId).toBe(organizationId);
    const privateKey = new Uint8Array(Buffer.from(target.privateKey, "hex"));
    const opened = await hpkeOpen(
      {
        encapsulatedKey: Buffer.from(content.encappedPublic as string, "hex"),
        ciphertext: Buffer.from(content.ciphertext as string, "hex"),
      },
      { privateKey, publicKey: p256.getPublicKey(privateKey, false) },
    );
    expect(new TextDecoder().decode(opened)).toBe(oracle);
  });

  it("refuses another signer, altered data, a bad signature and unknown versions, saying which", () => {
    const bundle = JSON.parse(signBundle({ organizationId }, signer)) as Record<string, string>;
    const other = serverKeyFromSecret(p256.utils.randomSecretKey());
    expect(() => openSignedBundle(signBundle({ organizationId }, other), signer.publicKeyHex)).toThrow(
      `the bundle is signed by ${other.publicKeyHex}, not by this server's signer key ${signer.publicKeyHex}`,
    );
    const altered = { ...bundle, data: bytesToHex(new TextEncoder().encode(JSON.stringify({ organizationId: "someone-else" }))) };
    expect(() => openSignedBundle(JSON.stringify(altered), signer.publicKeyHex)).toThrow("the bundle's signature does not verify");
    expect(() => openSignedBundle(JSON.stringify({ ...bundle, dataSignature: "3006020101020101" }), signer.publicKeyHex)).toThrow(
      "the bundle's signature does not verify",
    );
    expect(() => openSignedBundle(JSON.stringify({ ...bundle, version: "v2" }), signer.publicKeyHex)).toThrow(
      'unsupported bundle version "v2"',
    );
    expect(() => openSignedBundle("{", signer.publicKeyHex)).toThrow("the bundle is not JSON");
  });
});
