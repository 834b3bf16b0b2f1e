import { Type } from "@sinclair/typebox";
import { InvalidMnemonicError, parseWalletSecret, walletSeed } from "../../../crypto/mnemonic.js";
import { invalidArgument } from "../../../errors.js";
import { requireUser } from "../../users/user-records.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../activity-definition.js";
import { openImport } from "../import-keys.js";
import { deriveAccounts, insertWallet, WalletAccounts, checkWalletAccounts } from "../wallets.js";
import { WalletResult } from "../wallet-records.js";
import { mustExist } from "../../references.js";

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
  async execute({ tx, organization, now, services }, { userId, walletName, encryptedBundle, accounts }) {
    await requireUser(tx, organization.id, userId);
    const secret = new TextDecoder().decode(await openImport(tx, services, { userId, kind: "WALLET" }, encryptedBundle));
    let parsed;
    try {
      parsed = parseWalletSecret(secret);
    } catch (error) {
      if (error instanceof InvalidMnemonicError)
        throw invalidArgument(`encryptedBundle: ${error.message}`, [{ field: "encryptedBundle", description: error.message }]);
      throw error;
    }
    // The mnemonic exists only inside the import bundle, opened here with the user's import key: derived in the transaction.
    const derived = await deriveAccounts(walletSeed(parsed), accounts, "accounts");
    return insertWallet(
      tx,
      services,
      { organizationId: organization.id, name: walletName === "" ? defaultWalletName(now) : walletName, secret, imported: true, now },
      accounts,
      derived,
      {
        name: "walletName",
        accounts: "accounts",
      },
    );
  },
});

/** The name of a wallet imported without one: when it was imported, as login keys are named. */
export const defaultWalletName = (now: Date) => `Imported wallet ${now.toISOString()}`;
