import { Type } from "@sinclair/typebox";
import { TRANSACTION_TYPES, signTransaction as sign } from "../../../crypto/signing/transaction.js";
import { StringEnum } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { signedTransactionTransfers } from "../../../policy/velocity/asset-transfers.js";
import { checkSigningInput, readAheadSigningKey, resolveSigningKey, signingInput, withThrowawayKey } from "../signing-keys.js";

export const signTransaction = defineActivity({
  operation: "sign_transaction",
  type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
  intentKey: "signTransactionIntentV2",
  resultKey: "signTransactionResult",
  result: Type.Object({ signedTransaction: Type.String() }),
  sdkMethod: "signTransaction",
  summary: "Sign an Ethereum, Solana, Bitcoin (PSBT) or Tron transaction with a wallet account or private key",
  resource: "PRIVATE_KEY",
  action: "SIGN",
  policyTarget: { signer: "signWith", signs: "transaction" },
  policyParams: { type: "type" },
  assetTransfers: ({ type, unsignedTransaction }, parsed) => signedTransactionTransfers(type, unsignedTransaction, parsed),
  parameters: Type.Object({
    signWith: Type.String({ minLength: 1, description: "A wallet account address, private key address, or private key id" }),
    unsignedTransaction: Type.String({ minLength: 1 }),
    type: StringEnum(TRANSACTION_TYPES),
  }),
  readAhead: readAheadSigningKey,
  async validate({ db, organization, parsedTransactions, readAhead }, { signWith, unsignedTransaction, type }) {
    const found = await checkSigningInput(
      db,
      organization.id,
      signWith,
      (key) => {
        // Solana and Tron transactions are checked by a signature with a throwaway key of the same curve.
        if (key.curve !== "CURVE_SECP256K1") return sign(withThrowawayKey(key), type, unsignedTransaction, parsedTransactions);
        // Which of a PSBT's inputs the key can spend takes the key itself: execution finds that out.
        if (type === "TRANSACTION_TYPE_BITCOIN") return parsedTransactions.psbt(unsignedTransaction);
        // Once decoded, signing its digest cannot fail; the digest is hashed below, in slices.
        if (type === "TRANSACTION_TYPE_ETHEREUM") return parsedTransactions.ethereum(unsignedTransaction);
        return sign(withThrowawayKey(key), type, unsignedTransaction, parsedTransactions);
      },
      readAhead,
    );
    // Before the transaction: a megabyte of calldata takes about 100 ms to hash, and execute only signs the digest.
    if (type === "TRANSACTION_TYPE_ETHEREUM") await parsedTransactions.hashEthereum(unsignedTransaction);
    return found;
  },
  async execute({ tx, organization, services, validated, parsedTransactions }, { signWith, unsignedTransaction, type }) {
    const key = await resolveSigningKey(tx, services, organization.id, signWith, validated);
    return { signedTransaction: signingInput(() => sign(key, type, unsignedTransaction, parsedTransactions)) };
  },
});
