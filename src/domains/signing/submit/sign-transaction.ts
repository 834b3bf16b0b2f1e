import { Type } from "@sinclair/typebox";
import { TRANSACTION_TYPES, signTransaction as sign } from "../../../crypto/signing/transaction.js";
import { StringEnum } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { parsePsbt } from "../../../crypto/signing/bitcoin.js";
import { dryRunSigning, resolveSigningKey, signingInput } from "../signing-keys.js";

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
  policyParams: { type: "type" },
  parameters: Type.Object({
    signWith: Type.String({ minLength: 1, description: "A wallet account address, private key address, or private key id" }),
    unsignedTransaction: Type.String({ minLength: 1 }),
    type: StringEnum(TRANSACTION_TYPES),
  }),
  async validate({ db, organization }, { signWith, unsignedTransaction, type }) {
    return dryRunSigning(db, organization.id, signWith, (key) =>
      // Which of a PSBT's inputs the key can spend takes the key itself: execution finds that out.
      type === "TRANSACTION_TYPE_BITCOIN" && key.curve === "CURVE_SECP256K1"
        ? parsePsbt(unsignedTransaction)
        : sign(key, type, unsignedTransaction),
    );
  },
  async execute({ tx, organization, services, validated }, { signWith, unsignedTransaction, type }) {
    const key = await resolveSigningKey(tx, services, organization.id, signWith, validated);
    return { signedTransaction: signingInput(() => sign(key, type, unsignedTransaction)) };
  },
});
