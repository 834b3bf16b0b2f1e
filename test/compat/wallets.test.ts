import { mnemonicToEntropy } from "@scure/bip39";
import { wordlist as english } from "@scure/bip39/wordlists/english.js";
import { decryptExportBundle, encryptPrivateKeyToBundle, generateP256KeyPair } from "@turnkey/crypto";
import { Keypair } from "@solana/web3.js";
import { base58 } from "@scure/base";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MNEMONIC_LANGUAGES, WORDLISTS } from "../../src/crypto/mnemonic.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SOLANA_ACCOUNT, ETHEREUM_ACCOUNT, ethereumAccountAt } from "../helpers/wallet-accounts.js";
import { encryptedWalletForRootUser } from "../helpers/wallet-import.js";

const BTC = {
  curve: "CURVE_SECP256K1",
  pathFormat: "PATH_FORMAT_BIP32",
  path: "m/84'/0'/0'/0/0",
  addressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH",
} as const;

describe("wallets and private keys through @turnkey/sdk-server", () => {
  let server: TestServer;
  const signerKey = () => server.services.signer.publicKeyHex;

  async function exportMnemonic(walletId: string, language?: (typeof MNEMONIC_LANGUAGES)[number]): Promise<string> {
    const target = generateP256KeyPair();
    const { exportBundle } = await server
      .client()
      .exportWallet({ walletId, targetPublicKey: target.publicKeyUncompressed, ...(language ? { language } : {}) });
    const hex = await decryptExportBundle({
      exportBundle,
      embeddedKey: target.privateKey,
      organizationId: server.root.organizationId,
      returnMnemonic: false,
      dangerouslyOverrideSignerPublicKey: signerKey(),
    });
    return Buffer.from(hex, "hex").toString("utf8");
  }

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("creates a wallet whose accounts are the addresses its exported mnemonic derives elsewhere", async () => {
    const created = await server
      .client()
      .createWallet({ walletName: "main", accounts: [ETHEREUM_ACCOUNT, ethereumAccountAt(1), SOLANA_ACCOUNT, BTC] });
    expect(created.addresses).toHaveLength(4);
    const mnemonic = await exportMnemonic(created.walletId);
    expect(mnemonic.split(" ")).toHaveLength(12);
    expect(created.addresses[0]).toBe(mnemonicToAccount(mnemonic).address);
    expect(created.addresses[1]).toBe(mnemonicToAccount(mnemonic, { addressIndex: 1 }).address);

    const { wallet } = await server.client().getWallet({ walletId: created.walletId });
    expect(wallet).toMatchObject({ walletId: created.walletId, walletName: "main", exported: true, imported: false });
    expect((await server.client().getWallets({})).wallets.map((w) => w.walletId)).toContain(created.walletId);

    const { accounts } = await server.client().getWalletAccounts({ walletId: created.walletId, includeWalletDetails: true });
    expect(accounts.map((a) => a.address)).toEqual(created.addresses);
    expect(accounts[0]).toMatchObject({
      organizationId: server.root.organizationId,
      walletId: created.walletId,
      ...ETHEREUM_ACCOUNT,
      walletDetails: { walletName: "main" },
    });
    expect(accounts[0]!.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(accounts[2]!.publicKey).toMatch(/^[0-9a-f]{64}$/);
    const page = await server
      .client()
      .getWalletAccounts({ walletId: created.walletId, paginationOptions: { limit: "2", after: accounts[0]!.walletAccountId } });
    expect(page.accounts.map((a) => a.address)).toEqual(created.addresses.slice(1, 3));

    const byPath = await server.client().getWalletAccount({ walletId: created.walletId, path: SOLANA_ACCOUNT.path });
    expect(byPath.account.address).toBe(created.addresses[2]);
    const byAddress = await server.client().getWalletAccount({ walletId: created.walletId, address: created.addresses[3]! });
    expect(byAddress.account.path).toBe(BTC.path);
  });

  it("honours mnemonicLength and refuses impossible wallets with 400, creating nothing", async () => {
    const long = await server.client().createWallet({ walletName: "long", accounts: [], mnemonicLength: 24 });
    expect((await exportMnemonic(long.walletId)).split(" ")).toHaveLength(24);

    const before = (await server.client().getWallets({})).wallets.length;
    const badLength = await refusal(server.client().createWallet({ walletName: "x", accounts: [], mnemonicLength: 13 }));
    expect(badLength.code).toBe(3);
    expect(badLength.message).toContain("mnemonicLength");
    const badCurve = await refusal(
      server.client().createWallet({ walletName: "x", accounts: [{ ...SOLANA_ACCOUNT, curve: "CURVE_SECP256K1" }] }),
    );
    expect(badCurve.code).toBe(3);
    expect(badCurve.message).toContain("accounts[0]");
    expect(badCurve.message).toContain("CURVE_ED25519");
    const badPath = await refusal(
      server.client().createWallet({ walletName: "x", accounts: [ETHEREUM_ACCOUNT, { ...ETHEREUM_ACCOUNT, path: "m/44'/60'/x" }] }),
    );
    expect(badPath.code).toBe(3);
    expect(badPath.message).toContain("accounts[1].path");
    expect((await server.client().getWallets({})).wallets).toHaveLength(before);

    const taken = await server.client().createWallet({ walletName: "long", accounts: [] });
    expect(taken.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(taken.activity.failure?.message).toContain("already exists");
  });

  it("holds an organization to 100 wallets, and a wallet's name to one wallet, in the same check", async () => {
    const owner = generateP256KeyPair();
    const credentials = { apiPublicKey: owner.publicKey, apiPrivateKey: owner.privateKey };
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: "wallets at the limit",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "owner",
          apiKeys: [{ apiKeyName: "owner", publicKey: owner.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const inSub = server.client(credentials, subOrganizationId);
    // 98 wallets written directly (their secrets are never opened here), two through the API: the limit's last two places.
    await server.services.db.query(
      `INSERT INTO wallets (id, organization_id, name, sealed_mnemonic, imported, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'filler ' || i, '\\x00'::bytea, false, now(), now() FROM generate_series(1, 98) AS i`,
      [subOrganizationId],
    );
    const sameName = await inSub.createWallet({ walletName: "filler 7", accounts: [] });
    expect(sameName.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(sameName.activity.failure?.message).toContain('a wallet named "filler 7" already exists');
    for (const name of ["99th", "100th"])
      expect((await inSub.createWallet({ walletName: name, accounts: [ETHEREUM_ACCOUNT] })).activity.status).toBe(
        "ACTIVITY_STATUS_COMPLETED",
      );
    const past = await inSub.createWallet({ walletName: "101st", accounts: [] });
    expect(past.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(past.activity.failure?.message).toContain("maximum of 100 wallets");
    // At the limit, a taken name is still refused for the limit first.
    const takenAtLimit = await inSub.createWallet({ walletName: "99th", accounts: [] });
    expect(takenAtLimit.activity.failure?.message).toContain("maximum of 100 wallets");
  });

  it("previews accounts without persisting them, adds them, and refuses a duplicate", async () => {
    const { walletId } = await server.client().createWallet({ walletName: "accounts", accounts: [ETHEREUM_ACCOUNT] });
    const preview = await server.client().createWalletAccounts({ walletId, accounts: [ethereumAccountAt(5)], persist: false });
    expect((await server.client().getWalletAccounts({ walletId })).accounts).toHaveLength(1);
    const added = await server.client().createWalletAccounts({ walletId, accounts: [ethereumAccountAt(5)] });
    expect(added.addresses).toEqual(preview.addresses);
    expect((await server.client().getWalletAccounts({ walletId })).accounts).toHaveLength(2);
    const duplicate = await server.client().createWalletAccounts({ walletId, accounts: [ETHEREUM_ACCOUNT] });
    expect(duplicate.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(duplicate.activity.failure?.message).toContain("already has");
    await server.client().updateWallet({ walletId, walletName: "renamed" });
    expect((await server.client().getWallet({ walletId })).wallet.walletName).toBe("renamed");
  });

  it("exports the mnemonic in every listed language: the same entropy in other words", async () => {
    const { walletId } = await server.client().createWallet({ walletName: "languages", accounts: [] });
    const inEnglish = await exportMnemonic(walletId);
    const entropy = Buffer.from(mnemonicToEntropy(inEnglish, english)).toString("hex");
    for (const language of MNEMONIC_LANGUAGES) {
      const words = await exportMnemonic(walletId, language);
      expect(Buffer.from(mnemonicToEntropy(words.normalize("NFKD"), WORDLISTS[language])).toString("hex"), language).toBe(entropy);
    }
  });

  it("deletes wallets only once exported, unless deleteWithoutExport", async () => {
    const { walletId } = await server.client().createWallet({ walletName: "doomed", accounts: [ETHEREUM_ACCOUNT] });
    const refused = await server.client().deleteWallets({ walletIds: [walletId] });
    expect(refused.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(refused.activity.failure?.message).toContain(walletId);
    expect((await server.client().getWallet({ walletId })).wallet.walletId).toBe(walletId);
    await exportMnemonic(walletId);
    expect((await server.client().deleteWallets({ walletIds: [walletId] })).walletIds).toEqual([walletId]);
    const other = await server.client().createWallet({ walletName: "doomed too", accounts: [] });
    await server.client().deleteWallets({ walletIds: [other.walletId], deleteWithoutExport: true });
    const gone = await refusal(server.client().getWallet({ walletId: other.walletId }));
    expect(gone.code).toBe(5);
  });

  it("exports one wallet account's key", async () => {
    const { addresses } = await server
      .client()
      .createWallet({ walletName: "account export", accounts: [ETHEREUM_ACCOUNT, SOLANA_ACCOUNT] });
    const target = generateP256KeyPair();
    const { exportBundle } = await server
      .client()
      .exportWalletAccount({ address: addresses[0]!, targetPublicKey: target.publicKeyUncompressed });
    const key = await decryptExportBundle({
      exportBundle,
      embeddedKey: target.privateKey,
      organizationId: server.root.organizationId,
      returnMnemonic: false,
      dangerouslyOverrideSignerPublicKey: signerKey(),
    });
    expect(privateKeyToAccount(`0x${key}`).address).toBe(addresses[0]);
    const solana = await server.client().exportWalletAccount({ address: addresses[1]!, targetPublicKey: target.publicKeyUncompressed });
    const secret = await decryptExportBundle({
      exportBundle: solana.exportBundle,
      embeddedKey: target.privateKey,
      organizationId: server.root.organizationId,
      returnMnemonic: false,
      keyFormat: "SOLANA",
      dangerouslyOverrideSignerPublicKey: signerKey(),
    });
    expect(Keypair.fromSecretKey(base58.decode(secret)).publicKey.toBase58()).toBe(addresses[1]);
  });

  it("imports a wallet from a bundle encrypted by encryptWalletToBundle, once", async () => {
    const { userId, mnemonic, encryptedBundle } = await encryptedWalletForRootUser(server);
    const imported = await server.client().importWallet({ userId, walletName: "imported", encryptedBundle, accounts: [ETHEREUM_ACCOUNT] });
    expect(imported.addresses).toEqual([mnemonicToAccount(mnemonic).address]);
    expect((await server.client().getWallet({ walletId: imported.walletId })).wallet).toMatchObject({ imported: true, exported: false });
    expect(mnemonicToEntropy(await exportMnemonic(imported.walletId), english)).toEqual(mnemonicToEntropy(mnemonic, english));

    const replay = await server
      .client()
      .importWallet({ userId, walletName: "imported again", encryptedBundle, accounts: [ETHEREUM_ACCOUNT] });
    expect(replay.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(replay.activity.failure?.message).toContain("init_import_wallet");
  });

  it("creates, tags, lists, exports, imports and deletes private keys", async () => {
    const { privateKeyTagId } = await server.client().createPrivateKeyTag({ privateKeyTagName: "hot", privateKeyIds: [] });
    const created = await server.client().createPrivateKeys({
      privateKeys: [
        {
          privateKeyName: "eth key",
          curve: "CURVE_SECP256K1",
          privateKeyTags: [privateKeyTagId],
          addressFormats: ["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_COMPRESSED"],
        },
        { privateKeyName: "sol key", curve: "CURVE_ED25519", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_SOLANA"] },
      ],
    });
    const [eth, sol] = created.privateKeys;
    const { privateKeys } = await server.client().getPrivateKeys({});
    expect(privateKeys).toHaveLength(2);
    expect(Object.keys(privateKeys[0]!).sort()).toEqual(
      [
        "privateKeyId",
        "publicKey",
        "privateKeyName",
        "curve",
        "addresses",
        "privateKeyTags",
        "createdAt",
        "updatedAt",
        "exported",
        "imported",
      ].sort(),
    );
    expect(privateKeys[0]).toMatchObject({
      privateKeyId: eth!.privateKeyId,
      privateKeyTags: [privateKeyTagId],
      exported: false,
      imported: false,
      addresses: eth!.addresses,
    });
    expect((await server.client().listPrivateKeyTags({})).privateKeyTags.map((t) => t.tagName)).toEqual(["hot"]);

    const target = generateP256KeyPair();
    const exported = await server
      .client()
      .exportPrivateKey({ privateKeyId: eth!.privateKeyId!, targetPublicKey: target.publicKeyUncompressed });
    const key = await decryptExportBundle({
      exportBundle: exported.exportBundle,
      embeddedKey: target.privateKey,
      organizationId: server.root.organizationId,
      returnMnemonic: false,
      dangerouslyOverrideSignerPublicKey: signerKey(),
    });
    expect(privateKeyToAccount(`0x${key}`).address).toBe(eth!.addresses![0]!.address);
    expect((await server.client().getPrivateKey({ privateKeyId: eth!.privateKeyId! })).privateKey.exported).toBe(true);

    const refused = await server.client().deletePrivateKeys({ privateKeyIds: [eth!.privateKeyId!, sol!.privateKeyId!] });
    expect(refused.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(refused.activity.failure?.message).toContain(sol!.privateKeyId);
    await server.client().deletePrivateKeys({ privateKeyIds: [eth!.privateKeyId!, sol!.privateKeyId!], deleteWithoutExport: true });
    expect((await server.client().getPrivateKeys({})).privateKeys).toEqual([]);

    const userId = server.root.userId;
    const solana = Keypair.generate();
    const { importBundle } = await server.client().initImportPrivateKey({ userId });
    const encryptedBundle = await encryptPrivateKeyToBundle({
      privateKey: base58.encode(solana.secretKey),
      keyFormat: "SOLANA",
      importBundle,
      userId,
      organizationId: server.root.organizationId,
      dangerouslyOverrideSignerPublicKey: signerKey(),
    });
    const imported = await server.client().importPrivateKey({
      userId,
      privateKeyName: "imported sol",
      encryptedBundle,
      curve: "CURVE_ED25519",
      addressFormats: ["ADDRESS_FORMAT_SOLANA"],
    });
    expect(imported.addresses).toEqual([{ format: "ADDRESS_FORMAT_SOLANA", address: solana.publicKey.toBase58() }]);
    expect((await server.client().getPrivateKey({ privateKeyId: imported.privateKeyId })).privateKey.imported).toBe(true);

    const wrongCurve = await refusal(
      server.client().createPrivateKeys({
        privateKeys: [{ privateKeyName: "bad", curve: "CURVE_ED25519", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
      }),
    );
    expect(wrongCurve.code).toBe(3);
    expect(wrongCurve.message).toContain("privateKeys[0].addressFormats[0]");
  });

  it("creates a sub-organization with a wallet, and keeps it from being deleted with an unexported wallet", async () => {
    const root = generateP256KeyPair();
    const sub = await server.client().createSubOrganization({
      subOrganizationName: "with wallet",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "owner",
          apiKeys: [{ apiKeyName: "k", publicKey: root.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      wallet: { walletName: "default", accounts: [ETHEREUM_ACCOUNT, SOLANA_ACCOUNT] },
    });
    expect(sub.wallet?.addresses).toHaveLength(2);
    const owner = server.client({ apiPublicKey: root.publicKey, apiPrivateKey: root.privateKey }, sub.subOrganizationId);
    expect((await owner.getWalletAccounts({ walletId: sub.wallet!.walletId })).accounts.map((a) => a.address)).toEqual(
      sub.wallet!.addresses,
    );
    const refused = await owner.deleteSubOrganization({});
    expect(refused.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(refused.activity.failure?.message).toContain(sub.wallet!.walletId);
    await owner.deleteSubOrganization({ deleteWithoutExport: true });
  });
});
