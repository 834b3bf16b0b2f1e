import { Type } from "@sinclair/typebox";
import type { Hex } from "viem";
import { ApiError, GrpcCode, invalidArgument } from "../../../errors.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";
import { committedNextNonce } from "../nonces.js";
import { Caip2, EvmAddress } from "../evm-send.js";

export const getNonces = defineQuery({
  operation: "get_nonces",
  sdkMethod: "getNonces",
  summary: "The nonce the next transaction of an address gets: the node's pending count, or past what Strongroom already allocated",
  body: Type.Object({
    organizationId: Id(),
    address: EvmAddress("The Ethereum address to query nonces for"),
    caip2: Caip2,
    nonce: Type.Optional(Type.Boolean()),
    gasStationNonce: Type.Optional(Type.Boolean()),
  }),
  result: Type.Object({ nonce: Type.Optional(Type.String()), gasStationNonce: Type.Optional(Type.String()) }),
  async execute({ services }, body) {
    if (body.gasStationNonce === true)
      throw invalidArgument(
        "gasStationNonce: the Gas Station delegate's nonce belongs to the hosted service's sponsored transactions, which a self-hosted server does not run",
        "SPONSORSHIP_UNAVAILABLE",
        [{ field: "gasStationNonce", description: "no Gas Station on a self-hosted server" }],
      );
    if (body.nonce !== true) return {};
    const chain = await services.chains.evm(body.caip2);
    let pending: number;
    try {
      pending = await chain.client.getTransactionCount({ address: body.address as Hex, blockTag: "pending" });
    } catch (error) {
      throw new ApiError(
        GrpcCode.UNAVAILABLE,
        `caip2: the node of ${chain.caip2} did not answer eth_getTransactionCount: ${(error as Error).message.split("\n")[0]}`,
        "CHAIN_UNAVAILABLE",
      );
    }
    const allocated = await committedNextNonce(services.db, chain.caip2, body.address);
    return { nonce: (BigInt(pending) > allocated ? BigInt(pending) : allocated).toString() };
  },
});
