import { encryptWalletToBundle } from "@turnkey/crypto";
import type { TestServer } from "./server.js";
import { TEST_MNEMONIC } from "./wallet-accounts.js";

/**
 * Starts a wallet import for the root user (init_import_wallet) and encrypts `mnemonic` to its import
 * bundle as @turnkey/crypto does in a browser: the `encryptedBundle` that import_wallet takes.
 */
export async function encryptedWalletForRootUser(server: TestServer, mnemonic: string = TEST_MNEMONIC) {
  const userId = server.root.userId;
  const { importBundle } = await server.client().initImportWallet({ userId });
  const encryptedBundle = await encryptWalletToBundle({
    mnemonic,
    importBundle,
    userId,
    organizationId: server.root.organizationId,
    dangerouslyOverrideSignerPublicKey: server.services.signer.publicKeyHex,
  });
  return { userId, mnemonic, encryptedBundle };
}
