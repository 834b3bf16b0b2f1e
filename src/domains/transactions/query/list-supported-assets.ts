import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";
import { assetsOf } from "../assets.js";

export const listSupportedAssets = defineQuery({
  operation: "list_supported_assets",
  sdkMethod: "listSupportedAssets",
  summary: "The assets of a configured chain: its native asset and the tokens the operator lists in CHAIN_ASSETS",
  body: Type.Object({ organizationId: Id(), caip2: Type.String({ minLength: 1 }) }),
  result: Type.Object({
    assets: Type.Array(
      Type.Object({
        caip19: Type.String(),
        symbol: Type.String(),
        decimals: Type.Integer(),
        logoUrl: Type.Optional(Type.String()),
        name: Type.String(),
        stable: Type.Optional(Type.Boolean()),
      }),
    ),
  }),
  async execute({ services }, { caip2 }) {
    const id = caip2.startsWith("solana:") ? services.chains.solana(caip2).caip2 : (await services.chains.evm(caip2)).caip2;
    return { assets: assetsOf(services.chains.settings.assets, id).map(({ address: _address, ...asset }) => asset) };
  },
});
