import { Type } from "@sinclair/typebox";
import { requireWallet } from "../../../records/wallet.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { assertSafeToDelete } from "../export-rule.js";

export const deleteWallets = defineActivity({
  operation: "delete_wallets",
  type: "ACTIVITY_TYPE_DELETE_WALLETS",
  intentKey: "deleteWalletsIntent",
  resultKey: "deleteWalletsResult",
  result: Type.Object({ walletIds: IdList() }),
  sdkMethod: "deleteWallets",
  summary: "Delete wallets and their accounts; wallets never exported need deleteWithoutExport",
  resource: "WALLET",
  action: "DELETE",
  policyTarget: { wallets: "walletIds" },
  parameters: Type.Object({
    walletIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }),
    deleteWithoutExport: Type.Optional(Type.Boolean()),
  }),
  async validate({ db, organization }, { walletIds }) {
    for (const [index, walletId] of walletIds.entries())
      await mustExist(requireWallet(db, organization.id, walletId, `walletIds[${index}]`));
  },
  async execute({ tx, organization }, { walletIds, deleteWithoutExport }) {
    const wallets = [];
    for (const [index, walletId] of walletIds.entries())
      wallets.push(await requireWallet(tx, organization.id, walletId, `walletIds[${index}]`));
    assertSafeToDelete(wallets, "wallet(s)", deleteWithoutExport);
    await tx.query("DELETE FROM wallets WHERE id = ANY($1::text[]) AND organization_id = $2", [walletIds, organization.id]);
    return { walletIds };
  },
});
