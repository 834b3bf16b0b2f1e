import { bytesToHex } from "@noble/hashes/utils.js";
import { Address, NETWORK, OutScript, Transaction } from "@scure/btc-signer";
import type { Value } from "../language/index.js";

type Network = typeof NETWORK;

const ADDRESS_TYPES: Record<string, string> = { pkh: "P2PKH", sh: "P2SH", wpkh: "P2WPKH", wsh: "P2WSH", tr: "P2TR" };

/** bitcoin.tx from a parsed PSBT: standard fields only; fee = inputs minus outputs where the inputs carry their amounts. */
export function bitcoinTransaction(psbt: Transaction, network: Network = NETWORK): Value {
  let inputTotal = 0n;
  const inputs: Value[] = [];
  for (let i = 0; i < psbt.inputsLength; i++) {
    const input = psbt.getInput(i);
    const amount =
      input.witnessUtxo?.amount ??
      (input.nonWitnessUtxo && input.index !== undefined ? input.nonWitnessUtxo.outputs[input.index]?.amount : undefined) ??
      0n;
    inputTotal += amount;
    inputs.push({
      tx_id: input.txid ? bytesToHex(input.txid) : "",
      vout: BigInt(input.index ?? 0),
      sequence: BigInt(input.sequence ?? 0xffffffff),
    });
  }
  let outputTotal = 0n;
  const outputs: Value[] = [];
  for (let i = 0; i < psbt.outputsLength; i++) {
    const output = psbt.getOutput(i);
    const amount = output.amount ?? 0n;
    outputTotal += amount;
    let address = "";
    let type = "UNKNOWN";
    try {
      const decoded = OutScript.decode(output.script!);
      type = ADDRESS_TYPES[decoded.type] ?? decoded.type.toUpperCase();
      address = Address(network).encode(decoded);
    } catch {
      // a script with no address form (OP_RETURN, bare multisig)
    }
    outputs.push({ value: amount, script_pubkey: output.script ? bytesToHex(output.script) : "", address, address_type: type });
  }
  const lockTime = BigInt(psbt.lockTime);
  return {
    version: String(psbt.version),
    inputs,
    outputs,
    locktime: { amount: lockTime, type: lockTime < 500_000_000n ? "Blocks" : "Seconds" },
    fee: inputTotal - outputTotal,
  };
}
