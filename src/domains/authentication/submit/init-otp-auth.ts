import { defineActivity } from "../../../operations/activity-definition.js";
import { checkInitOtp, InitOtpParams, issueOtp } from "../otp.js";
import { userByContact } from "../../users/contacts.js";
import { Type } from "@sinclair/typebox";

export const initOtpAuth = defineActivity({
  operation: "init_otp_auth",
  type: "ACTIVITY_TYPE_INIT_OTP_AUTH_V3",
  intentKey: "initOtpAuthIntentV3",
  resultKey: "initOtpAuthResultV2",
  result: Type.Object({ otpId: Type.String() }),
  sdkMethod: "initOtpAuth",
  summary: "Legacy OTP login: send a one-time code to a user of the organization, to be exchanged with otp_auth for a credential bundle",
  resource: "AUTH",
  action: "CREATE",
  parameters: InitOtpParams,
  parentMayInitiate: true,
  lockKey: (params) => `otp-contact:${params.contact.trim().toLowerCase()}`,
  validate: async (_ctx, params) => void checkInitOtp(params),
  async execute(ctx, params) {
    // Codes go only to contacts of existing users: otp_auth logs that user in.
    await userByContact(ctx.tx, ctx.organization.id, params.otpType, params.contact.trim());
    const { otpId } = await issueOtp(ctx, params, "OTP_AUTH");
    return { otpId };
  },
});
