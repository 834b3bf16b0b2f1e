import { Type } from "@sinclair/typebox";
import { Int64String, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkEmailedCredential, EmailAuthCustomization, emailCredential } from "../emailed-credential.js";
import { SenderParams } from "../otp.js";

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
  enrolls: () => ({ factors: ["session"] }),
  async validate(_ctx, params) {
    checkEmailedCredential(params);
  },
  async execute(ctx, params) {
    return emailCredential(ctx, params, {
      feature: "FEATURE_NAME_EMAIL_AUTH",
      disabledBy: "disableEmailAuth",
      credentialType: "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256",
      apiKeyName: params.apiKeyName ?? `Email Auth - ${ctx.now.toISOString()}`,
      invalidateExisting: params.invalidateExisting,
      purpose: "login",
    });
  },
});
