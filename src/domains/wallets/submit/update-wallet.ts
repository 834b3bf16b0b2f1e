import { Type } from "@sinclair/typebox";
import { requireWallet } from "../../../records/wallet.js";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { assertWalletNameFree } from "../wallets.js";

export const updateWallet = defineActivity({
  operation: "update_wallet",
  type: "ACTIVITY_TYPE_UPDATE_WALLET",
  intentKey: "updateWalletIntent",
  resultKey: "updateWalletResult",
  result: Type.Object({ walletId: Type.String() }),
  sdkMethod: "updateWallet",
  summary: "Rename a wallet",
  resource: "WALLET",
  action: "UPDATE",
  policyTarget: { wallet: "walletId" },
  policyParams: { wallet_id: "walletId" },
  parameters: Type.Object({ walletId: Id(), walletName: Type.Optional(Name()) }),
  async validate({ db, organization }, { walletId }) {
    await mustExist(requireWallet(db, organization.id, walletId));
  },
  async execute({ tx, organization, now }, { walletId, walletName }) {
    const wallet = await requireWallet(tx, organization.id, walletId);
    if (walletName !== undefined && walletName !== wallet.name) {
      await assertWalletNameFree(tx, organization.id, walletName, "walletName");
      await tx.query("UPDATE wallets SET name = $2, updated_at = $3 WHERE id = $1", [wallet.id, walletName, now]);
    }
    return { walletId };
  },
});
