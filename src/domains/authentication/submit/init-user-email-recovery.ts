import { Type } from "@sinclair/typebox";
import { Int64String } from "../../../schema/common.js";
import { defineActivity } from "../../activity-definition.js";
import { issueCredential } from "../../sessions/issue-credential.js";
import { bundleMessage, deliver } from "../otp-messages.js";
import { requireFeature } from "../../organizations/features.js";
import { requireChannel, SenderParams } from "../otp.js";
import { checkEmail } from "../../users/users.js";
import { userByContact } from "../../users/contacts.js";
import { EmailAuthCustomization } from "./email-auth.js";
import { sessionSeconds } from "../../sessions/sessions.js";
import { requireTargetKey } from "../../../crypto/target-key.js";

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
  async validate(_ctx, params) {
    sessionSeconds(params.expirationSeconds);
    checkEmail(params.email, "email");
    requireTargetKey(params.targetPublicKey);
  },
  async execute(ctx, params) {
    requireFeature(ctx.organization, "FEATURE_NAME_EMAIL_RECOVERY", "disableEmailRecovery");
    requireChannel(ctx, "OTP_TYPE_EMAIL");
    const user = await userByContact(ctx.tx, ctx.organization.id, "OTP_TYPE_EMAIL", params.email);
    const { credentialBundle, seconds } = await issueCredential(ctx, {
      userId: user.id,
      targetPublicKey: params.targetPublicKey,
      credentialType: RECOVERY_CREDENTIAL,
      apiKeyName: `Recovery - ${ctx.now.toISOString()}`,
      expirationSeconds: params.expirationSeconds,
      // One recovery at a time: a new one replaces an older, unused recovery key.
      invalidateExisting: true,
    });
    const message = bundleMessage({
      to: params.email,
      appName: params.emailCustomization.appName,
      purpose: "recovery",
      bundle: credentialBundle,
      minutes: Math.max(1, Math.round(seconds / 60)),
      params,
    });
    ctx.afterCommit(() => deliver(ctx.services.messaging, message));
    return { userId: user.id };
  },
});
