import { Type } from "@sinclair/typebox";
import { InvalidMnemonicError, parseWalletSecret, walletSeedAsync } from "../../../crypto/mnemonic.js";
import { failedPrecondition, invalidArgument } from "../../../errors.js";
import { requireUser } from "../../../records/user.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { consumeImportKey, findImportKey, openImportBundle } from "../import-keys.js";
import { deriveAccounts, insertWallet, WalletAccounts, checkWalletAccounts, type DerivedAccount } from "../wallets.js";
import { WalletResult } from "../../../records/wallet.js";
import { mustExist } from "../../references.js";

/** An import opened and derived before its transaction, with the import key it was opened with. */
interface PreparedImport {
  sealedImportKey: string;
  secret: string;
  accounts: DerivedAccount[];
}

export const importWallet = defineActivity({
  operation: "import_wallet",
  type: "ACTIVITY_TYPE_IMPORT_WALLET",
  intentKey: "importWalletIntent",
  resultKey: "importWalletResult",
  result: WalletResult,
  sdkMethod: "importWallet",
  summary: "Import a wallet from a mnemonic encrypted to the user's import key (see init_import_wallet)",
  resource: "WALLET",
  action: "IMPORT",
  parameters: Type.Object({
    userId: Id(),
    // @turnkey/react-wallet-kit's import modal lets the name be left empty and sends "": such a wallet gets a default name.
    walletName: Type.String({ maxLength: 256 }),
    encryptedBundle: Type.String({ minLength: 1 }),
    accounts: WalletAccounts,
  }),
  async validate({ db, organization }, { userId, accounts }) {
    await mustExist(requireUser(db, organization.id, userId));
    checkWalletAccounts(accounts, "accounts");
  },
  // The bundle is opened and the accounts derived before the transaction, with the pending import key as it was
  // then; the transaction consumes that same key, so the import still happens once, for the key it was encrypted to.
  async prepare(services, { userId, encryptedBundle, accounts }, organization): Promise<PreparedImport | undefined> {
    const source = { userId, kind: "WALLET" as const };
    const sealedImportKey = await findImportKey(services.db, { ...source, organizationId: organization.id });
    if (sealedImportKey === undefined) return undefined;
    const secret = new TextDecoder().decode(await openImportBundle(services, source, sealedImportKey, encryptedBundle));
    let parsed;
    try {
      parsed = parseWalletSecret(secret);
    } catch (error) {
      if (error instanceof InvalidMnemonicError)
        throw invalidArgument(`encryptedBundle: ${error.message}`, [{ field: "encryptedBundle", description: error.message }]);
      throw error;
    }
    return { sealedImportKey, secret, accounts: await deriveAccounts(await walletSeedAsync(parsed), accounts, "accounts") };
  },
  async execute({ tx, organization, now, services }, { userId, walletName, accounts }, prepared) {
    await requireUser(tx, organization.id, userId);
    const sealedImportKey = await consumeImportKey(tx, { userId, kind: "WALLET" });
    if (prepared?.sealedImportKey !== sealedImportKey) {
      throw failedPrecondition(
        `userId: the pending import of user ${userId} changed while this import was prepared (init_import_wallet was called again); ` +
          `encrypt the wallet to the new importBundle and import again`,
        "REQUEST_INVALID",
      );
    }
    return insertWallet(
      tx,
      services,
      {
        organizationId: organization.id,
        name: walletName === "" ? defaultWalletName(now) : walletName,
        secret: prepared.secret,
        imported: true,
        now,
      },
      accounts,
      prepared.accounts,
      {
        name: "walletName",
        accounts: "accounts",
      },
    );
  },
});

/** The name of a wallet imported without one: when it was imported, as login keys are named. */
export const defaultWalletName = (now: Date) => `Imported wallet ${now.toISOString()}`;
