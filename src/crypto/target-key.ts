import { InvalidTargetKeyError, parseTargetPublicKey } from "./bundles.js";
import { invalidArgument } from "../errors.js";

/** The client's key a bundle is encrypted to; a malformed one is a 400 naming the field. */
export function requireTargetKey(hex: string, field = "targetPublicKey"): Uint8Array {
  try {
    return parseTargetPublicKey(hex, field);
  } catch (error) {
    if (error instanceof InvalidTargetKeyError) throw invalidArgument(error.message, [{ field, description: error.message }]);
    throw error;
  }
}
