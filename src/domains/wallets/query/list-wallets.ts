import { Type } from "@sinclair/typebox";
import { walletRecord, type WalletRow, WalletRecord } from "../../../records/wallet.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const listWallets = defineQuery({
  operation: "list_wallets",
  sdkMethod: "getWallets",
  summary: "Every wallet of the organization, oldest first",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ wallets: Type.Array(WalletRecord) }),
  async execute({ organization, services }) {
    const rows = await services.db.query<WalletRow>("SELECT * FROM wallets WHERE organization_id = $1 ORDER BY seq", [organization.id]);
    return { wallets: rows.map(walletRecord) };
  },
});
