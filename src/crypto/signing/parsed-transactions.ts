import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Transaction } from "@scure/btc-signer";
import { parsePsbt } from "./bitcoin.js";
import { decodeEthereumTransaction, type EthereumTransaction } from "./ethereum-transaction.js";

/** Slices of a payload hashed between two turns of the event loop: a few milliseconds each. */
const HASH_SLICE_BYTES = 64 * 1024;

/**
 * One request's parsed transactions: the dry run at validation (outside any transaction), the policy
 * decision's keywords and the MFA conditions (in the activity's transaction) and the signing read the same
 * parse, and an Ethereum transaction's digest is hashed once, before the transaction, in slices that let other
 * requests run. The pipeline makes one per request (a submission, a vote) and hands it through its steps; it is
 * never shared between requests. A parse that failed fails again with the same error.
 */
export class ParsedTransactions {
  private readonly ethereumParses = new Map<string, EthereumTransaction | Error>();
  private readonly ethereumDigests = new Map<string, Uint8Array>();
  private readonly psbts = new Map<string, Transaction | Error>();

  /** The Ethereum transaction `unsignedTransaction` holds, or the SigningInputError saying why not. */
  ethereum(unsignedTransaction: string): EthereumTransaction {
    return memoized(this.ethereumParses, unsignedTransaction, decodeEthereumTransaction);
  }

  /** keccak256 of the transaction's signing payload, hashed at once unless `hashEthereum` did it before. */
  ethereumDigest(unsignedTransaction: string): Uint8Array {
    let digest = this.ethereumDigests.get(unsignedTransaction);
    if (!digest) {
      digest = keccak_256(this.ethereum(unsignedTransaction).signingPayload);
      this.ethereumDigests.set(unsignedTransaction, digest);
    }
    return digest;
  }

  /**
   * Hashes the signing payload ahead of the signing, yielding to the event loop between slices (a megabyte of
   * calldata takes about 100 ms to hash: other requests are served meanwhile). Throws what `ethereum` throws.
   */
  async hashEthereum(unsignedTransaction: string): Promise<void> {
    if (this.ethereumDigests.has(unsignedTransaction)) return;
    const payload = this.ethereum(unsignedTransaction).signingPayload;
    const hash = keccak_256.create();
    for (let offset = 0; offset < payload.length; offset += HASH_SLICE_BYTES) {
      if (offset > 0) await new Promise((resolve) => setImmediate(resolve));
      hash.update(payload.subarray(offset, offset + HASH_SLICE_BYTES));
    }
    this.ethereumDigests.set(unsignedTransaction, hash.digest());
  }

  /**
   * The PSBT `unsignedTransaction` holds, to read only (signing adds signatures to a PSBT: it parses its own
   * copy), or the SigningInputError saying why not.
   */
  psbt(unsignedTransaction: string): Transaction {
    return memoized(this.psbts, unsignedTransaction, parsePsbt);
  }
}

function memoized<T>(parses: Map<string, T | Error>, input: string, parse: (input: string) => T): T {
  let parsed = parses.get(input);
  if (parsed === undefined) {
    try {
      parsed = parse(input);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      parsed = error;
    }
    parses.set(input, parsed);
  }
  if (parsed instanceof Error) throw parsed;
  return parsed;
}
