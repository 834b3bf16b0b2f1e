import { bech32m } from "@scure/base";

/**
 * Spark address: bech32m of the identity public key wrapped as protobuf field 1 (0x0a, length 0x21),
 * with HRP "spark" (mainnet) or "sparkrt" (regtest), as Spark's SDK encodes it.
 */
export const sparkAddress = (compressedPublicKey: Uint8Array, network: "MAINNET" | "REGTEST"): string =>
  bech32m.encode(network === "MAINNET" ? "spark" : "sparkrt", bech32m.toWords(new Uint8Array([0x0a, 0x21, ...compressedPublicKey])), 1000);
