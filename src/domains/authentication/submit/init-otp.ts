import { signBundle } from "../../../crypto/signed-bundle.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { InitOtpParams, issueOtp, checkInitOtp } from "../otp.js";
import { Type } from "@sinclair/typebox";

export const initOtp = defineActivity({
  operation: "init_otp",
  type: "ACTIVITY_TYPE_INIT_OTP_V3",
  intentKey: "initOtpIntentV3",
  resultKey: "initOtpResultV2",
  result: Type.Object({ otpId: Type.String(), otpEncryptionTargetBundle: Type.String() }),
  sdkMethod: "initOtp",
  summary: "Send a one-time code by email, SMS or WhatsApp; the result holds a signed key to encrypt the code to for verify_otp",
  resource: "OTP",
  action: "CREATE",
  parameters: InitOtpParams,
  parentMayInitiate: true,
  lockKey: (params) => `otp-contact:${params.contact.trim().toLowerCase()}`,
  validate: async (_ctx, params) => void checkInitOtp(params),
  async execute(ctx, params) {
    const { otpId, targetPublicKeyHex } = await issueOtp(ctx, params, "OTP");
    // The same signed envelope as import bundles: @turnkey/crypto's encryptOtpCodeToBundle checks the
    // signature (against the signer key passed as its override) and encrypts to `targetPublic`.
    const otpEncryptionTargetBundle = signBundle(
      { organizationId: ctx.organization.id, otpId, targetPublic: targetPublicKeyHex },
      ctx.services.signer,
    );
    return { otpId, otpEncryptionTargetBundle };
  },
});
