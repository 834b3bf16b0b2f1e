import { bytesToHex } from "@noble/hashes/utils.js";
import { Transaction } from "@scure/btc-signer";
import { decodeHex, SigningInputError } from "./errors.js";

/**
 * Signs every input of a PSBT (hex) that the key can spend — P2PKH, P2WPKH, P2SH-wrapped and
 * single-key P2WSH by ECDSA, P2TR key path by Schnorr with the BIP-341 tweak — and returns the PSBT,
 * not finalized, as hex.
 */
export function signBitcoinTransaction(unsignedTransaction: string, privateKey: Uint8Array): string {
  const bytes = decodeHex(unsignedTransaction, "unsignedTransaction");
  let psbt: Transaction;
  try {
    psbt = Transaction.fromPSBT(bytes, { allowUnknownOutputs: true, allowUnknownInputs: true, allowLegacyWitnessUtxo: true });
  } catch (error) {
    throw new SigningInputError(`unsignedTransaction: not a PSBT (hex): ${(error as Error).message}`);
  }
  let signed = 0;
  for (let index = 0; index < psbt.inputsLength; index++) {
    try {
      if (psbt.signIdx(privateKey, index)) signed++;
    } catch {
      // an input this key cannot spend stays as it is, for its own signer
    }
  }
  if (signed === 0) throw new SigningInputError("unsignedTransaction: the signing key can spend none of the PSBT's inputs (each input needs its witnessUtxo or nonWitnessUtxo, and tapInternalKey for P2TR)");
  return bytesToHex(psbt.toPSBT());
}
