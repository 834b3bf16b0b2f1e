import { base58check, hash160 } from "./hashes.js";

/** Dogecoin P2PKH: base58check of version ‖ hash160(compressed key); 0x1e (D…) mainnet, 0x71 (n…) testnet. */
export const dogecoinAddress = (compressedPublicKey: Uint8Array, network: "MAINNET" | "TESTNET"): string =>
  base58check.encode(new Uint8Array([network === "MAINNET" ? 0x1e : 0x71, ...hash160(compressedPublicKey)]));
