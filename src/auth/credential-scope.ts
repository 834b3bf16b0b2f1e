import { permissionDenied } from "../errors.js";
import type { Principal } from "./principal.js";

/**
 * Credentials made for one purpose, and the only operations they may be used for. The email recovery key
 * (init_user_email_recovery) exists to add a passkey with recover_user; whoami lets the client learn whose
 * key it holds. Whoever reads the recovery email must not get the user's full powers from it.
 */
const SCOPED_CREDENTIALS: Record<string, ReadonlySet<string>> = {
  CREDENTIAL_TYPE_RECOVER_USER_KEY_P256: new Set(["recover_user", "whoami"]),
};

/** Refuses (403, naming the credential type) an operation the signing credential is not made for. */
export function assertCredentialMayUse(principal: Principal, operation: string): void {
  const allowed = SCOPED_CREDENTIALS[principal.credential.type];
  if (allowed && !allowed.has(operation)) {
    throw permissionDenied(
      `a ${principal.credential.type} credential (API key ${principal.credential.id}) may only be used for ${[...allowed].join(" and ")}, not ${operation}`,
      "CREDENTIAL_NOT_ALLOWED",
    );
  }
}
