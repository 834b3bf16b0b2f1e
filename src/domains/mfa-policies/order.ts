import { Type } from "@sinclair/typebox";

/** `order` (int64 upstream; the SDKs send a number): where the policy is evaluated among its user's, lowest first. */
export const MfaOrder = Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.String({ pattern: "^[0-9]{1,9}$" })], {
  description: "Evaluation order among the user's MFA policies, lowest first",
});

/** An MFA condition's length limit (its evaluation cost is also checked when written). */
export const MFA_CONDITION_MAX = 4096;
