/** The first Ethereum account of a wallet (BIP-44, m/44'/60'/0'/0/0): the account most tests derive. */
export const ETHEREUM_ACCOUNT = {
  curve: "CURVE_SECP256K1",
  pathFormat: "PATH_FORMAT_BIP32",
  path: "m/44'/60'/0'/0/0",
  addressFormat: "ADDRESS_FORMAT_ETHEREUM",
} as const;

/** The Ethereum account at `index` of the same BIP-44 path. */
export const ethereumAccountAt = (index: number) => ({ ...ETHEREUM_ACCOUNT, path: `m/44'/60'/0'/0/${index}` });

/** The first Solana account of a wallet (BIP-44, m/44'/501'/0'/0'). */
export const SOLANA_ACCOUNT = {
  curve: "CURVE_ED25519",
  pathFormat: "PATH_FORMAT_BIP32",
  path: "m/44'/501'/0'/0'",
  addressFormat: "ADDRESS_FORMAT_SOLANA",
} as const;

/** The well-known public test mnemonic (Hardhat, Foundry); its first Ethereum address is 0xf39F…2266. */
export const TEST_MNEMONIC = "test test test test test test test test test test test junk";
