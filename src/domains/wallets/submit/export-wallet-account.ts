import { Type } from "@sinclair/typebox";
import { exportBundle } from "../../../crypto/bundles.js";
import { requireWalletAccountByAddress } from "../../../records/wallet-account.js";
import { mustExist } from "../../references.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { requireTargetKey } from "../../../crypto/target-key.js";

export const exportWalletAccount = defineActivity({
  operation: "export_wallet_account",
  type: "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
  intentKey: "exportWalletAccountIntent",
  resultKey: "exportWalletAccountResult",
  result: Type.Object({ address: Type.String(), exportBundle: Type.String() }),
  sdkMethod: "exportWalletAccount",
  summary: "Export one wallet account's private key, HPKE-encrypted to the client's key in a bundle signed by the server",
  resource: "WALLET",
  action: "EXPORT",
  policyTarget: { signer: "address" },
  policyParams: { target_public_key: "targetPublicKey" },
  parameters: Type.Object({ address: Type.String({ minLength: 1 }), targetPublicKey: Type.String() }),
  async validate({ db, organization }, { address, targetPublicKey }) {
    requireTargetKey(targetPublicKey);
    await mustExist(requireWalletAccountByAddress(db, organization.id, address));
  },
  async execute({ tx, organization, now, services }, { address, targetPublicKey }) {
    const target = requireTargetKey(targetPublicKey);
    const account = await requireWalletAccountByAddress(tx, organization.id, address);
    const privateKey = services.kek.open(account.sealed_private_key, `wallet-account:${account.id}`);
    const bundle = await exportBundle(privateKey, target, organization.id, services.signer);
    await tx.query("UPDATE wallet_accounts SET exported = true, updated_at = $2 WHERE id = $1", [account.id, now]);
    return { address, exportBundle: bundle };
  },
});
