import { Type } from "@sinclair/typebox";
import { invalidArgument } from "../../../errors.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { sentTransactionTransfers } from "../../../policy/velocity/asset-transfers.js";
import { Caip2, EvmAddress, Quantity, executeEvmSend, fillEvmSend, validateEvmSend, type EvmCall } from "../evm-send.js";
import { ethSendTransactionV1 } from "./eth-send-transaction-v1.js";

const EthCall = Type.Object({
  to: EvmAddress("Recipient address as a hex string with 0x prefix"),
  value: Type.Optional(Quantity("Amount of native asset to send in wei")),
  data: Type.Optional(Type.String({ description: "Hex-encoded call data for contract interactions" })),
});

/** The one call of a V2 request: several need an EIP-7702 batch through the hosted Gas Station delegate. */
function onlyCall(calls: EvmCall[]): EvmCall {
  if (calls.length !== 1)
    throw invalidArgument(
      `calls: ${calls.length} calls would need an EIP-7702 batch through the hosted service's Gas Station delegate, which a self-hosted server does not run; send one call per transaction`,
      [{ field: "calls", description: "exactly one call" }],
    );
  return calls[0]!;
}

export const ethSendTransaction = defineActivity({
  operation: "eth_send_transaction",
  type: "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2",
  intentKey: "ethSendTransactionIntentV2",
  resultKey: "ethSendTransactionResultV2",
  result: Type.Object({ sendTransactionStatusId: Type.String() }),
  sdkMethod: "ethSendTransaction",
  summary: "Sign and send an EVM transaction (one call; nonce, gas and fees filled when left out) on a configured chain",
  resource: "PRIVATE_KEY",
  action: "SIGN",
  policyTarget: { signer: "signWith", signs: "transaction" },
  assetTransfers: (params, parsed) => sentTransactionTransfers(params, parsed),
  earlierVersions: [ethSendTransactionV1],
  parameters: Type.Object({
    from: EvmAddress("A wallet account or private key address to sign with"),
    caip2: Caip2,
    sponsor: Type.Optional(Type.Boolean()),
    nonce: Type.Optional(Quantity("Outer transaction nonce; omit to allocate")),
    gasLimit: Type.Optional(Quantity("Gas limit; omit to estimate")),
    maxFeePerGas: Type.Optional(Quantity("Maximum total fee per gas in wei; omit to estimate")),
    maxPriorityFeePerGas: Type.Optional(Quantity("Maximum priority fee per gas in wei; omit to estimate")),
    deadline: Type.Optional(Type.String()),
    gasStationNonce: Type.Optional(Type.String()),
    calls: Type.Array(EthCall, { minItems: 1, maxItems: 50 }),
  }),
  async validate({ services, organization }, params) {
    await validateEvmSend(services, organization.id, params, onlyCall(params.calls), "calls[0]");
  },
  fill: (services, params) => fillEvmSend(services, params, params, onlyCall(params.calls), "calls[0]"),
  async execute(ctx, params) {
    return { sendTransactionStatusId: await executeEvmSend(ctx, params, ctx.organization) };
  },
});
