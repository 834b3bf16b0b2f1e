import { Type } from "@sinclair/typebox";
import { requireWallet, walletRecord, WalletRecord } from "../../../records/wallet.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getWallet = defineQuery({
  operation: "get_wallet",
  sdkMethod: "getWallet",
  summary: "One wallet",
  body: Type.Object({ organizationId: Id(), walletId: Id() }),
  result: Type.Object({ wallet: WalletRecord }),
  async execute({ organization, services }, { walletId }) {
    return { wallet: walletRecord(await requireWallet(services.db, organization.id, walletId)) };
  },
});
