import { Type } from "@sinclair/typebox";
import { Id, Int64String, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { issueCredential } from "../../sessions/issue-credential.js";
import { otpGuessLockKey, pendingOtp } from "../otp.js";
import { userByContact } from "../../users/contacts.js";
import { sessionSeconds } from "../../sessions/sessions.js";
import { requireTargetKey } from "../../../crypto/target-key.js";

export const otpAuth = defineActivity({
  operation: "otp_auth",
  type: "ACTIVITY_TYPE_OTP_AUTH",
  intentKey: "otpAuthIntent",
  resultKey: "otpAuthResult",
  secretFields: { intent: ["otpCode"] },
  result: Type.Object({ userId: Type.String(), apiKeyId: Type.String(), credentialBundle: Type.String() }),
  sdkMethod: "otpAuth",
  summary: "Legacy OTP login: check the code from init_otp_auth and return an expiring API key of the user as a credential bundle",
  resource: "AUTH",
  action: "CREATE",
  parameters: Type.Object({
    otpId: Id(),
    otpCode: Type.String({ minLength: 1, maxLength: 64 }),
    targetPublicKey: Type.String({ minLength: 1 }),
    apiKeyName: Type.Optional(Name()),
    expirationSeconds: Type.Optional(Int64String()),
    invalidateExisting: Type.Optional(Type.Boolean()),
  }),
  parentMayInitiate: true,
  lockKey: (params, tx) => otpGuessLockKey(tx, params.otpId),
  enrolls: () => ({ factors: ["session"] }),
  async validate(_ctx, params) {
    sessionSeconds(params.expirationSeconds);
    requireTargetKey(params.targetPublicKey);
  },
  async execute(ctx, params) {
    const pending = await pendingOtp(ctx, params.otpId, "OTP_AUTH");
    await pending.check(params.otpCode);
    const user = await userByContact(ctx.tx, ctx.organization.id, pending.row.otp_type, pending.row.contact);
    const { apiKeyId, credentialBundle } = await issueCredential(ctx, {
      userId: user.id,
      targetPublicKey: params.targetPublicKey,
      credentialType: "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256",
      apiKeyName: params.apiKeyName ?? `OTP Auth - ${ctx.now.toISOString()}`,
      expirationSeconds: params.expirationSeconds,
      invalidateExisting: params.invalidateExisting,
    });
    return { userId: user.id, apiKeyId, credentialBundle };
  },
});
