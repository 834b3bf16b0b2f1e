import { Type } from "@sinclair/typebox";
import { Int64String } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkEmailedCredential, EmailAuthCustomization, emailCredential } from "../emailed-credential.js";
import { SenderParams } from "../otp.js";

export const RECOVERY_CREDENTIAL = "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256";

export const initUserEmailRecovery = defineActivity({
  operation: "init_user_email_recovery",
  type: "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2",
  intentKey: "initUserEmailRecoveryIntentV2",
  resultKey: "initUserEmailRecoveryResult",
  result: Type.Object({ userId: Type.String() }),
  sdkMethod: "initUserEmailRecovery",
  summary: "Email a user a recovery credential bundle, with which recover_user adds a new authenticator",
  resource: "RECOVERY",
  action: "CREATE",
  parameters: Type.Object({
    email: Type.String({ minLength: 1, maxLength: 320 }),
    targetPublicKey: Type.String({ minLength: 1 }),
    expirationSeconds: Type.Optional(Int64String()),
    emailCustomization: EmailAuthCustomization,
    ...SenderParams,
  }),
  parentMayInitiate: true,
  // The recovery key proves no MFA step and may only stamp recover_user, which enrolls a passkey.
  enrolls: () => ({ factors: ["session"] }),
  async validate(_ctx, params) {
    checkEmailedCredential(params);
  },
  async execute(ctx, params) {
    const { userId } = await emailCredential(ctx, params, {
      feature: "FEATURE_NAME_EMAIL_RECOVERY",
      disabledBy: "disableEmailRecovery",
      credentialType: RECOVERY_CREDENTIAL,
      apiKeyName: `Recovery - ${ctx.now.toISOString()}`,
      // One recovery at a time: a new one replaces an older, unused recovery key.
      invalidateExisting: true,
      purpose: "recovery",
    });
    return { userId };
  },
});
