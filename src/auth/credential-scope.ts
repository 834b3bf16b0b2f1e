import { permissionDenied } from "../errors.js";
import { SCOPED_CREDENTIAL_TYPES, type ScopedCredentialType, type SignerRules } from "../operations/signers.js";
import type { Principal } from "./principal.js";

const isScoped = (type: string): type is ScopedCredentialType => (SCOPED_CREDENTIAL_TYPES as readonly string[]).includes(type);

/**
 * Refuses (403, naming the credential type) an operation the signing credential is not made for: a scoped
 * credential (SCOPED_CREDENTIAL_TYPES) may use only the operations whose definition names it;
 * `operationsFor` lists those, for the refusal.
 */
export function assertCredentialMayUse(
  principal: Principal,
  definition: SignerRules & { operation: string },
  operationsFor: (type: ScopedCredentialType) => readonly string[],
): void {
  const { type } = principal.credential;
  if (isScoped(type) && !definition.scopedCredentials?.includes(type)) {
    throw permissionDenied(
      `a ${type} credential (API key ${principal.credential.id}) may only be used for ${operationsFor(type).join(" and ")}, not ${definition.operation}`,
      "CREDENTIAL_NOT_ALLOWED",
    );
  }
}
