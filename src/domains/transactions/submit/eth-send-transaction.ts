import { Type } from "@sinclair/typebox";
import { invalidArgument } from "../../../errors.js";
import { defineEvmSend, EVM_CALL_FIELDS, EVM_SEND_FIELDS, type EvmCall } from "../evm-send.js";
import { ethSendTransactionV1 } from "./eth-send-transaction-v1.js";

/** The one call of a V2 request: several need an EIP-7702 batch through the hosted Gas Station delegate. */
function onlyCall(calls: EvmCall[]): EvmCall {
  if (calls.length !== 1)
    throw invalidArgument(
      `calls: ${calls.length} calls would need an EIP-7702 batch through the hosted service's Gas Station delegate, which a self-hosted server does not run; send one call per transaction`,
      [{ field: "calls", description: "exactly one call" }],
    );
  return calls[0]!;
}

export const ethSendTransaction = defineEvmSend({
  type: "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2",
  intentKey: "ethSendTransactionIntentV2",
  resultKey: "ethSendTransactionResultV2",
  summary: "Sign and send an EVM transaction (one call; nonce, gas and fees filled when left out) on a configured chain",
  parameters: Type.Object({ ...EVM_SEND_FIELDS, calls: Type.Array(Type.Object(EVM_CALL_FIELDS), { minItems: 1, maxItems: 50 }) }),
  call: (params) => onlyCall(params.calls),
  callField: "calls[0]",
  earlierVersions: [ethSendTransactionV1],
});
