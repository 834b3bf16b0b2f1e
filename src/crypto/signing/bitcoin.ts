import { bytesToHex } from "@noble/hashes/utils.js";
import { Transaction } from "@scure/btc-signer";
import { equalBytes, hash160, pubECDSA, pubSchnorr, taprootTweakPubkey } from "@scure/btc-signer/utils.js";
import { decodeHex, SigningInputError } from "./errors.js";

const FIELD = "unsignedTransaction";

type PsbtInput = ReturnType<Transaction["getInput"]>;

/** The script the input spends: witnessUtxo's, or the referenced output of nonWitnessUtxo. */
function prevoutScript(input: PsbtInput): Uint8Array | undefined {
  if (input.witnessUtxo) return input.witnessUtxo.script;
  if (input.nonWitnessUtxo && input.index !== undefined) return input.nonWitnessUtxo.outputs[input.index]?.script;
  return undefined;
}

function contains(haystack: Uint8Array | undefined, needle: Uint8Array): boolean {
  if (!haystack) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** Whether the input names this key anywhere a signer would look for it. */
function mentionsKey(input: PsbtInput, needles: Uint8Array[]): boolean {
  const places = [
    prevoutScript(input),
    input.redeemScript,
    input.witnessScript,
    input.tapInternalKey,
    ...(input.tapLeafScript ?? []).map(([, script]) => script),
  ];
  return places.some((place) => needles.some((needle) => contains(place, needle)));
}

/** The PSBT an unsignedTransaction holds (hex), or a SigningInputError saying why not. */
export function parsePsbt(unsignedTransaction: string): Transaction {
  const trimmed = unsignedTransaction.trim();
  if (trimmed.startsWith("cHNidP")) throw new SigningInputError(`${FIELD}: this PSBT is base64; send the PSBT as hex`);
  const bytes = decodeHex(trimmed, FIELD);
  try {
    return Transaction.fromPSBT(bytes, { allowUnknownOutputs: true, allowUnknownInputs: true, allowLegacyWitnessUtxo: true });
  } catch (error) {
    throw new SigningInputError(`${FIELD}: not a PSBT (hex): ${(error as Error).message}`);
  }
}

/**
 * Signs a PSBT given as hex (Turnkey: "hex serialized representation of a PSBT"): every input the
 * key can spend gets its signature reinserted — a DER ECDSA signature in partialSig for P2PKH (needs
 * nonWitnessUtxo or, leniently, witnessUtxo), P2WPKH, P2SH (incl. P2SH-P2WPKH) and P2WSH whose
 * script holds the key or its hash; a BIP-340 Schnorr signature in tapKeySig for a P2TR key-path
 * spend, with the key tweaked per BIP-341 (BIP-86 when the input has no tapMerkleRoot). A P2TR input
 * whose output key is the key's BIP-86 output key but that lacks tapInternalKey gets it filled in.
 * The sighash is the input's sighashType when the PSBT sets one, else SIGHASH_ALL (SIGHASH_DEFAULT
 * for taproot). Inputs of other keys are left as they are; nothing is finalized. Returns the PSBT
 * as hex without 0x.
 */
export function signBitcoinTransaction(unsignedTransaction: string, privateKey: Uint8Array): string {
  const psbt = parsePsbt(unsignedTransaction);
  const publicKey = pubECDSA(privateKey);
  const xOnly = pubSchnorr(privateKey);
  const [bip86OutputKey] = taprootTweakPubkey(xOnly, new Uint8Array(0));
  const needles = [publicKey, hash160(publicKey), xOnly, bip86OutputKey];

  let signed = 0;
  for (let index = 0; index < psbt.inputsLength; index++) {
    const input = psbt.getInput(index);
    const script = prevoutScript(input);
    // A P2TR output is OP_1 <32-byte output key>.
    if (
      !input.tapInternalKey &&
      script?.length === 34 &&
      script[0] === 0x51 &&
      script[1] === 0x20 &&
      equalBytes(script.subarray(2), bip86OutputKey)
    ) {
      psbt.updateInput(index, { tapInternalKey: xOnly }, true);
    }
    try {
      const sighash = input.sighashType;
      if (psbt.signIdx(privateKey, index, sighash === undefined ? undefined : [sighash])) signed++;
    } catch (error) {
      // An input of another key stays as it is, for its own signer; one of this key that cannot be
      // signed is an error rather than a silently missing signature.
      if (mentionsKey(psbt.getInput(index), needles)) {
        throw new SigningInputError(
          `${FIELD}: input ${index} belongs to the signing key but cannot be signed: ${(error as Error).message}`,
        );
      }
    }
  }
  if (signed === 0) {
    throw new SigningInputError(
      `${FIELD}: the signing key can spend none of the PSBT's ${psbt.inputsLength} inputs (each input needs its witnessUtxo or nonWitnessUtxo; P2SH and P2WSH inputs their redeemScript / witnessScript)`,
    );
  }
  return bytesToHex(psbt.toPSBT());
}
