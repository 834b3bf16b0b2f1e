import { Type } from "@sinclair/typebox";
import { defineEvmSend, EVM_CALL_FIELDS, EVM_SEND_FIELDS } from "../evm-send.js";

/** ACTIVITY_TYPE_ETH_SEND_TRANSACTION: one call given inline (to/value/data); served at eth_send_transaction beside V2. */
export const ethSendTransactionV1 = defineEvmSend({
  type: "ACTIVITY_TYPE_ETH_SEND_TRANSACTION",
  intentKey: "ethSendTransactionIntent",
  resultKey: "ethSendTransactionResult",
  summary: "Sign and send an EVM transaction (nonce, gas and fees filled when left out) on a configured chain",
  parameters: Type.Object({ ...EVM_SEND_FIELDS, ...EVM_CALL_FIELDS }),
  call: (params) => params,
  callField: "to",
});
