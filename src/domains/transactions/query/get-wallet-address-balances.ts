import { Type } from "@sinclair/typebox";
import type { Hex } from "viem";
import { viem } from "../../../crypto/chain-libraries.js";
import { ApiError, GrpcCode, notFound } from "../../../errors.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";
import type { Services } from "../../../services.js";
import { assetsOf, displayAmount, type ChainAsset } from "../assets.js";

/** The balance of each of the chain's assets, read from its node (a token balance of zero is left out, as the API does). */
async function balancesOf(services: Services, caip2: string, address: string): Promise<Array<{ asset: ChainAsset; balance: bigint }>> {
  if (caip2.startsWith("solana:")) {
    const chain = services.chains.solana(caip2);
    return Promise.all(
      assetsOf(services.chains.settings.assets, chain.caip2).map(async (asset) => {
        if (!asset.address) {
          const { value } = await chain.call((rpc) => rpc.getBalance(address as never, { commitment: "confirmed" }).send());
          return { asset, balance: BigInt(value) };
        }
        const { value } = await chain.call((rpc) =>
          rpc.getTokenAccountsByOwner(address as never, { mint: asset.address as never }, { encoding: "jsonParsed" }).send(),
        );
        const amounts = value.map((a) =>
          BigInt((a.account.data as { parsed: { info: { tokenAmount: { amount: string } } } }).parsed.info.tokenAmount.amount),
        );
        return { asset, balance: amounts.reduce((sum, n) => sum + n, 0n) };
      }),
    );
  }
  const chain = await services.chains.evm(caip2);
  return Promise.all(
    assetsOf(services.chains.settings.assets, chain.caip2).map(async (asset) => ({
      asset,
      balance: asset.address
        ? await chain.client.readContract({
            address: asset.address as Hex,
            abi: viem().erc20Abi,
            functionName: "balanceOf",
            args: [address as Hex],
          })
        : await chain.client.getBalance({ address: address as Hex }),
    })),
  );
}

export const getWalletAddressBalances = defineQuery({
  operation: "get_wallet_address_balances",
  sdkMethod: "getWalletAddressBalances",
  summary:
    "Non-zero balances of a wallet account on a configured chain: the native asset and the tokens in CHAIN_ASSETS, read from the node",
  body: Type.Object({ organizationId: Id(), address: Type.String({ minLength: 1 }), caip2: Type.String({ minLength: 1 }) }),
  result: Type.Object({
    balances: Type.Array(
      Type.Object({
        caip19: Type.String(),
        symbol: Type.String(),
        balance: Type.String(),
        decimals: Type.Integer(),
        display: Type.Object({ crypto: Type.String() }),
        name: Type.String(),
      }),
    ),
  }),
  async execute({ services, organization }, { address, caip2 }) {
    const [account] = await services.db.query(
      "SELECT 1 FROM wallet_accounts WHERE organization_id = $1 AND lower(address) = lower($2) LIMIT 1",
      [organization.id, address],
    );
    if (!account)
      throw notFound(
        `address: ${address} is not a wallet account of organization ${organization.id} (private key addresses are not supported)`,
        "WALLET_ACCOUNT_NOT_FOUND",
      );
    let balances;
    try {
      balances = await balancesOf(services, caip2, address);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(
        GrpcCode.UNAVAILABLE,
        `caip2: the node of ${caip2} did not answer: ${(error as Error).message.split("\n")[0]}`,
        "CHAIN_UNAVAILABLE",
      );
    }
    return {
      balances: balances
        .filter((b) => b.balance !== 0n)
        .map(({ asset, balance }) => ({
          caip19: asset.caip19,
          symbol: asset.symbol,
          balance: balance.toString(),
          decimals: asset.decimals,
          display: { crypto: displayAmount(balance, asset.decimals) },
          name: asset.name,
        })),
    };
  },
});
