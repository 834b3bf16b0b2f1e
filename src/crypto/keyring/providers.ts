import type { SealSettings } from "../../config.js";
import { localRootWrapper, type RootWrapper } from "./root-wrapper.js";

/**
 * The root wrapper of an auto-unseal provider (STRONGROOM_SEAL): the file key, the PKCS#11 token's key, or the AWS KMS
 * key. `create`: the keyring is being created (or recovered onto this provider), so a PKCS#11 token without the
 * labelled key gets one. The PKCS#11 and KMS modules load only when configured (their packages are optional).
 * Shamir has none: its root key exists only once shares are combined (custody.ts).
 */
export async function openProviderWrapper(
  settings: SealSettings,
  fileKey: () => Buffer,
  options: { create: boolean },
): Promise<RootWrapper> {
  switch (settings.provider) {
    case "file":
      return localRootWrapper(fileKey(), "file");
    case "pkcs11":
      return (await import("./pkcs11-wrapper.js")).pkcs11RootWrapper(settings.pkcs11!, options);
    case "awskms":
      return (await import("./awskms-wrapper.js")).awsKmsRootWrapper(settings.awskms!);
    case "shamir":
      throw new Error("the shamir seal provider has no root key until its shares are combined");
  }
}
