import { p256 } from "@noble/curves/nist.js";
import { Type } from "@sinclair/typebox";
import { issueVerificationToken } from "../../../auth/verification-token.js";
import { InvalidEncryptedBundleError, openEncryptedBundle } from "../../../crypto/bundles.js";
import { invalidArgument } from "../../../errors.js";
import { Id, Int64String } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { lifetimeSeconds, otpGuessLockKey, pendingOtp } from "../otp.js";

/** Verification tokens live an hour unless asked otherwise, at most a day. */
const TOKEN_DEFAULT_SECONDS = 3600;
const TOKEN_MAX_SECONDS = 86_400;

const refuse = (why: string) => invalidArgument(`encryptedOtpBundle: ${why}`, [{ field: "encryptedOtpBundle", description: why }]);

/** The bundle's plaintext, as encryptOtpCodeToBundle makes it: {"otp_code": …, "public_key": <client key hex>}. */
async function openOtpBundle(bundle: string, targetPrivateKey: Uint8Array): Promise<{ code: string; publicKey: string }> {
  let plaintext: Uint8Array;
  try {
    plaintext = await openEncryptedBundle(bundle, targetPrivateKey);
  } catch (error) {
    if (error instanceof InvalidEncryptedBundleError) {
      throw refuse(
        "cannot be decrypted; encrypt {otp_code, public_key} to the otpEncryptionTargetBundle of this otpId (encryptOtpCodeToBundle)",
      );
    }
    throw error;
  }
  let content: Record<string, unknown>;
  try {
    content = JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, unknown>;
  } catch {
    throw refuse("the decrypted content is not JSON");
  }
  const { otp_code: code, public_key: publicKey } = content;
  if (typeof code !== "string" || code.length === 0) throw refuse("the decrypted content has no otp_code");
  if (typeof publicKey !== "string" || !/^[0-9a-fA-F]+$/.test(publicKey))
    throw refuse("the decrypted content has no public_key (a P-256 public key in hex)");
  try {
    p256.Point.fromHex(publicKey).assertValidity();
  } catch {
    throw refuse("public_key is not a P-256 public key");
  }
  return { code, publicKey: publicKey.toLowerCase() };
}

export const verifyOtp = defineActivity({
  operation: "verify_otp",
  type: "ACTIVITY_TYPE_VERIFY_OTP_V2",
  intentKey: "verifyOtpIntentV2",
  resultKey: "verifyOtpResult",
  secretFields: { result: ["verificationToken"] },
  result: Type.Object({ verificationToken: Type.String() }),
  sdkMethod: "verifyOtp",
  summary: "Check a one-time code (encrypted to its init_otp bundle) and return a verification token bound to the client's key",
  resource: "OTP",
  action: "VERIFY",
  parameters: Type.Object({
    otpId: Id(),
    encryptedOtpBundle: Type.String({ minLength: 1, maxLength: 10_000 }),
    expirationSeconds: Type.Optional(Int64String()),
  }),
  parentMayInitiate: true,
  lockKey: (params, tx) => otpGuessLockKey(tx, params.otpId),
  validate: async (_ctx, params) =>
    void lifetimeSeconds(params.expirationSeconds, "expirationSeconds", TOKEN_DEFAULT_SECONDS, TOKEN_MAX_SECONDS),
  async execute(ctx, params) {
    const ttl = lifetimeSeconds(params.expirationSeconds, "expirationSeconds", TOKEN_DEFAULT_SECONDS, TOKEN_MAX_SECONDS);
    const pending = await pendingOtp(ctx, params.otpId, "OTP");
    const { code, publicKey } = await openOtpBundle(params.encryptedOtpBundle, pending.targetPrivateKey);
    await pending.check(code);
    const { token } = await issueVerificationToken(
      ctx.services.signer,
      { verificationType: pending.row.otp_type, contact: pending.row.contact, organizationId: ctx.organization.id, publicKey },
      ttl,
      ctx.now,
    );
    return { verificationToken: token };
  },
});
