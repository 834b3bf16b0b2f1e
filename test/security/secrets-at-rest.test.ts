import { decryptExportBundle, encryptPrivateKeyToBundle, encryptWalletToBundle, generateP256KeyPair } from "@turnkey/crypto";
import { base58, base64 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { generatePrivateKey } from "../../src/crypto/keys.js";
import { initRootWithClient, startLoggedServer } from "../helpers/logged-server.js";
import { refusal } from "../helpers/refusal.js";
import { SOLANA_ACCOUNT, ETHEREUM_ACCOUNT } from "../helpers/wallet-accounts.js";

/** The forms a secret could leak in: hex (either case), base64, base58, and for mnemonics the words. */
function leakForms(secret: { hex?: string; text?: string }): string[] {
  const forms: string[] = [];
  if (secret.hex) {
    const bytes = Buffer.from(secret.hex, "hex");
    forms.push(secret.hex.toLowerCase(), secret.hex.toUpperCase(), base64.encode(bytes), base58.encode(bytes));
  }
  if (secret.text)
    forms.push(
      secret.text,
      secret.text.split(" ").slice(0, 6).join(" "),
      Buffer.from(secret.text).toString("hex"),
      Buffer.from(secret.text).toString("base64"),
    );
  return forms;
}

describe("key material at rest, in logs and in responses", () => {
  it("never appears in plaintext, whatever was created, imported, exported or signed", async () => {
    const server = await startLoggedServer();
    const { services } = server;
    const responses: unknown[] = [];
    try {
      const { root, client } = await initRootWithClient(server);
      const record = <T>(value: T): T => {
        responses.push(value);
        return value;
      };
      const secrets: { hex?: string; text?: string }[] = [];
      const target = generateP256KeyPair();
      const open = async (exportBundle: string, returnMnemonic: boolean) =>
        decryptExportBundle({
          exportBundle,
          embeddedKey: target.privateKey,
          organizationId: root.organizationId,
          returnMnemonic,
          dangerouslyOverrideSignerPublicKey: services.signer.publicKeyHex,
        });

      // Created: a wallet (its mnemonic and both account keys) and two private keys.
      const wallet = record(
        await client.createWallet({ walletName: "w", accounts: [ETHEREUM_ACCOUNT, SOLANA_ACCOUNT], mnemonicLength: 24 }),
      );
      secrets.push({
        text: await open(
          record(await client.exportWallet({ walletId: wallet.walletId, targetPublicKey: target.publicKeyUncompressed })).exportBundle,
          true,
        ),
      });
      for (const address of wallet.addresses) {
        secrets.push({
          hex: await open(
            record(await client.exportWalletAccount({ address, targetPublicKey: target.publicKeyUncompressed })).exportBundle,
            false,
          ),
        });
      }
      const keys = record(
        await client.createPrivateKeys({
          privateKeys: [
            { privateKeyName: "k1", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] },
            { privateKeyName: "k2", curve: "CURVE_ED25519", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_SOLANA"] },
          ],
        }),
      );
      for (const key of keys.privateKeys) {
        secrets.push({
          hex: await open(
            record(await client.exportPrivateKey({ privateKeyId: key.privateKeyId!, targetPublicKey: target.publicKeyUncompressed }))
              .exportBundle,
            false,
          ),
        });
      }

      // Imported: a mnemonic and a private key.
      const mnemonic =
        "void come effort suffer camp survey warrior heavy shoot primary clutch crush open amazing screen patrol group space point ten exist slush involve unfold";
      const importedKey = Buffer.from(generatePrivateKey("CURVE_SECP256K1")).toString("hex");
      secrets.push({ text: mnemonic }, { hex: importedKey });
      const userId = root.userId;
      const walletBundle = record(await client.initImportWallet({ userId })).importBundle;
      record(
        await client.importWallet({
          userId,
          walletName: "imported",
          accounts: [ETHEREUM_ACCOUNT],
          encryptedBundle: await encryptWalletToBundle({
            mnemonic,
            importBundle: walletBundle,
            userId,
            organizationId: root.organizationId,
            dangerouslyOverrideSignerPublicKey: services.signer.publicKeyHex,
          }),
        }),
      );
      const keyBundle = record(await client.initImportPrivateKey({ userId })).importBundle;
      record(
        await client.importPrivateKey({
          userId,
          privateKeyName: "imported",
          curve: "CURVE_SECP256K1",
          addressFormats: ["ADDRESS_FORMAT_ETHEREUM"],
          encryptedBundle: await encryptPrivateKeyToBundle({
            privateKey: importedKey,
            keyFormat: "HEXADECIMAL",
            importBundle: keyBundle,
            userId,
            organizationId: root.organizationId,
            dangerouslyOverrideSignerPublicKey: services.signer.publicKeyHex,
          }),
        }),
      );

      // Used: signatures, reads, a refusal.
      record(
        await client.signRawPayload({
          signWith: wallet.addresses[0]!,
          payload: "00".repeat(32),
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        }),
      );
      record(await client.getWalletAccounts({ walletId: wallet.walletId }));
      record(await client.getPrivateKeys({}));
      record(await client.getActivities({}));
      // A wallet that does not exist is refused at submission (400), not a FAILED activity (issue 14).
      const refused = await refusal(client.deleteWallets({ walletIds: [wallet.walletId, "missing"] }));
      record({ code: refused.code, message: refused.message, details: refused.details });

      expect(secrets).toHaveLength(7);
      expect(secrets[0]!.text!.split(" ")).toHaveLength(24);

      const tables = await services.db.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()");
      expect(tables.map((t) => t.tablename)).toEqual(
        expect.arrayContaining(["wallets", "wallet_accounts", "private_keys", "import_keys", "activities", "votes"]),
      );
      let database = "";
      for (const { tablename } of tables) database += JSON.stringify(await services.db.query(`SELECT * FROM "${tablename}"`));
      const places = { database, logs: server.log(), responses: JSON.stringify(responses) };
      expect(places.logs).toContain("/public/v1/submit/export_wallet");
      expect(places.database).toContain("sealed");
      for (const secret of secrets) {
        for (const form of leakForms(secret)) {
          for (const [place, text] of Object.entries(places)) {
            expect(text.includes(form), `a secret appears in the ${place} as ${form.slice(0, 8)}…`).toBe(false);
          }
        }
      }
    } finally {
      await server.close();
    }
  });
});
