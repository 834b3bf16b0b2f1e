import { Type } from "@sinclair/typebox";
import { Int64String, Name } from "../../../schema/common.js";
import { defineActivity } from "../../activity-definition.js";
import { issueCredential } from "../../sessions/issue-credential.js";
import { bundleMessage, deliver } from "../otp-messages.js";
import { requireFeature } from "../../organizations/features.js";
import { EmailCustomization, requireChannel, SenderParams } from "../otp.js";
import { checkEmail } from "../../users/users.js";
import { userByContact } from "../../users/contacts.js";
import { sessionSeconds } from "../../sessions/sessions.js";
import { requireTargetKey } from "../../../crypto/target-key.js";

export const EmailAuthCustomization = Type.Composite([
  EmailCustomization,
  Type.Object({ appName: Type.String({ minLength: 1, maxLength: 256 }) }),
]);

export const emailAuth = defineActivity({
  operation: "email_auth",
  type: "ACTIVITY_TYPE_EMAIL_AUTH_V3",
  intentKey: "emailAuthIntentV3",
  resultKey: "emailAuthResult",
  result: Type.Object({ userId: Type.String(), apiKeyId: Type.String() }),
  sdkMethod: "emailAuth",
  summary: "Email a user a credential bundle (an expiring API key encrypted to the client's key), in a magic link if a template is given",
  resource: "AUTH",
  action: "CREATE",
  parameters: Type.Object({
    email: Type.String({ minLength: 1, maxLength: 320 }),
    targetPublicKey: Type.String({ minLength: 1 }),
    apiKeyName: Type.Optional(Name()),
    expirationSeconds: Type.Optional(Int64String()),
    emailCustomization: EmailAuthCustomization,
    invalidateExisting: Type.Optional(Type.Boolean()),
    ...SenderParams,
  }),
  parentMayInitiate: true,
  async validate(_ctx, params) {
    sessionSeconds(params.expirationSeconds);
    checkEmail(params.email, "email");
    requireTargetKey(params.targetPublicKey);
  },
  async execute(ctx, params) {
    requireFeature(ctx.organization, "FEATURE_NAME_EMAIL_AUTH", "disableEmailAuth");
    requireChannel(ctx, "OTP_TYPE_EMAIL");
    const user = await userByContact(ctx.tx, ctx.organization.id, "OTP_TYPE_EMAIL", params.email);
    const { apiKeyId, credentialBundle, seconds } = await issueCredential(ctx, {
      userId: user.id,
      targetPublicKey: params.targetPublicKey,
      credentialType: "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256",
      apiKeyName: params.apiKeyName ?? `Email Auth - ${ctx.now.toISOString()}`,
      expirationSeconds: params.expirationSeconds,
      invalidateExisting: params.invalidateExisting,
    });
    const message = bundleMessage({
      to: params.email,
      appName: params.emailCustomization.appName,
      purpose: "login",
      bundle: credentialBundle,
      minutes: Math.max(1, Math.round(seconds / 60)),
      params,
    });
    ctx.afterCommit(() => deliver(ctx.services.messaging, message));
    return { userId: user.id, apiKeyId };
  },
});
