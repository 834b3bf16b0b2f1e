import { Type } from "@sinclair/typebox";
import { exportBundle } from "../../../crypto/bundles.js";
import { MNEMONIC_LANGUAGES, mnemonicIn, parseWalletSecret } from "../../../crypto/mnemonic.js";
import { requireWallet } from "../../../records/wallet.js";
import { Id, StringEnum } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { requireTargetKey } from "../../../crypto/target-key.js";

export const exportWallet = defineActivity({
  operation: "export_wallet",
  type: "ACTIVITY_TYPE_EXPORT_WALLET",
  intentKey: "exportWalletIntent",
  resultKey: "exportWalletResult",
  result: Type.Object({ walletId: Type.String(), exportBundle: Type.String() }),
  sdkMethod: "exportWallet",
  summary: "Export a wallet's mnemonic, HPKE-encrypted to the client's key in a bundle signed by the server",
  resource: "WALLET",
  action: "EXPORT",
  policyTarget: { wallet: "walletId" },
  policyParams: { target_public_key: "targetPublicKey" },
  parameters: Type.Object({ walletId: Id(), targetPublicKey: Type.String(), language: Type.Optional(StringEnum(MNEMONIC_LANGUAGES)) }),
  async validate({ db, organization }, { walletId, targetPublicKey }) {
    requireTargetKey(targetPublicKey);
    await mustExist(requireWallet(db, organization.id, walletId));
  },
  async execute({ tx, organization, now, services }, { walletId, targetPublicKey, language }) {
    const target = requireTargetKey(targetPublicKey);
    const wallet = await requireWallet(tx, organization.id, walletId);
    const secret = parseWalletSecret(new TextDecoder().decode(services.kek.open(wallet.sealed_mnemonic, `wallet:${wallet.id}`)));
    const words = language ? mnemonicIn(secret.mnemonic, language) : secret.mnemonic;
    const plaintext = new TextEncoder().encode(secret.passphrase ? `${words}\n${secret.passphrase}` : words);
    const bundle = await exportBundle(plaintext, target, organization.id, services.signer);
    await tx.query("UPDATE wallets SET exported = true, updated_at = $2 WHERE id = $1", [wallet.id, now]);
    return { walletId, exportBundle: bundle };
  },
});
