import { Type } from "@sinclair/typebox";
import type { Hex, TransactionSerialized } from "viem";
import { viem } from "../../../crypto/chain-libraries.js";
import { invalidArgument } from "../../../errors.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { sentTransactionTransfers } from "../../../policy/velocity/asset-transfers.js";
import { insertSendTransaction } from "../../../records/send-transaction.js";
import { allocateNonce } from "../nonces.js";
import { Caip2 } from "../evm-send.js";

const FIELD = "signedTransaction";

/** The signed transaction, its sender and nonce; a 400 naming the field when it is not one, or is for another chain. */
async function readSigned(signedTransaction: string, caip2: string): Promise<{ hex: Hex; from: string; nonce: bigint }> {
  const hex = (signedTransaction.startsWith("0x") ? signedTransaction : `0x${signedTransaction}`) as TransactionSerialized;
  const refuse = (why: string) => invalidArgument(`${FIELD}: ${why}`, [{ field: FIELD, description: why }]);
  const { getAddress, parseTransaction, recoverTransactionAddress } = viem();
  let parsed;
  let from: string;
  try {
    parsed = parseTransaction(hex);
    from = await recoverTransactionAddress({ serializedTransaction: hex });
  } catch (error) {
    throw refuse(`not a signed Ethereum transaction (${(error as Error).message.split("\n")[0]})`);
  }
  if (parsed.r === undefined || parsed.s === undefined) throw refuse("the transaction is not signed");
  const chainId = (parsed as { chainId?: number }).chainId;
  if (chainId === undefined)
    throw refuse("the transaction does not commit to a chain id (pre-EIP-155), so it could be replayed on any chain");
  if (`eip155:${chainId}` !== caip2) throw refuse(`the transaction is signed for eip155:${chainId}, not ${caip2}`);
  return { hex, from: getAddress(from), nonce: BigInt(parsed.nonce ?? 0) };
}

export const ethSendRawTransaction = defineActivity({
  operation: "eth_send_raw_transaction",
  type: "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
  intentKey: "ethSendRawTransactionIntent",
  resultKey: "ethSendRawTransactionResult",
  result: Type.Object({ transactionHash: Type.String() }),
  sdkMethod: "ethSendRawTransaction",
  summary: "Send a transaction signed elsewhere on a configured EVM chain; tracked by the same broadcaster",
  resource: "PRIVATE_KEY",
  action: "SIGN",
  policyTarget: { signer: "signWith", signs: "transaction" },
  assetTransfers: (params, parsed) => sentTransactionTransfers(params, parsed),
  parameters: Type.Object({
    signedTransaction: Type.String({ minLength: 1, description: "The raw, signed transaction (hex)" }),
    caip2: Caip2,
  }),
  async validate(_ctx, params) {
    await readSigned(params.signedTransaction, params.caip2);
  },
  async fill(services, params) {
    await services.chains.evm(params.caip2);
    const { hex, from } = await readSigned(params.signedTransaction, params.caip2);
    // Policies see the transaction (eth.tx) and, when the sender is one of the organization's, its wallet.
    return { ...params, signWith: from, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: hex.slice(2) };
  },
  async execute({ tx, organization, activityId, services, now, afterCommit }, params) {
    const { hex, from, nonce } = await readSigned(params.signedTransaction, params.caip2);
    // Later sends from this address go past its nonce.
    await allocateNonce(tx, params.caip2, from, 0n, nonce);
    const transactionHash = viem().keccak256(hex);
    await insertSendTransaction(
      tx,
      {
        organizationId: organization.id,
        activityId,
        chain: params.caip2,
        family: "evm",
        from: from.toLowerCase(),
        nonce,
        signedTransaction: hex,
        txHash: transactionHash,
      },
      now,
    );
    afterCommit(async () => services.broadcaster.wake());
    return { transactionHash };
  },
});
