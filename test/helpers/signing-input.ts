import { expect } from "vitest";
import { SigningInputError } from "../../src/crypto/signing/raw-payload.js";

/** The message of the SigningInputError that `sign` throws; fails the test if it throws nothing or another error. */
export function signingInputRefusal(sign: () => unknown): string {
  try {
    sign();
  } catch (error) {
    expect(error).toBeInstanceOf(SigningInputError);
    return (error as Error).message;
  }
  throw new Error("expected a SigningInputError");
}
