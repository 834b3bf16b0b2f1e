import { Type } from "@sinclair/typebox";
import { requireTargetKey } from "../../crypto/target-key.js";
import type { ActivityContext } from "../../operations/activity-definition.js";
import { requireFeature } from "../organizations/features.js";
import { issueCredential } from "../sessions/issue-credential.js";
import { sessionSeconds } from "../sessions/sessions.js";
import { userByContact } from "../users/contacts.js";
import { checkEmail } from "../users/users.js";
import { bundleMessage, deliver, type SenderOptions } from "./otp-messages.js";
import { EmailCustomization, requireChannel } from "./otp.js";

export const EmailAuthCustomization = Type.Composite([
  EmailCustomization,
  Type.Object({ appName: Type.String({ minLength: 1, maxLength: 256 }) }),
]);

/** What email_auth and init_user_email_recovery both take: whom to email, and the key to encrypt the bundle to. */
export interface EmailedCredentialRequest extends SenderOptions {
  email: string;
  targetPublicKey: string;
  expirationSeconds?: string;
  emailCustomization: { appName: string; logoUrl?: string; magicLinkTemplate?: string };
}

/** The input checks of an emailed credential, for `validate`: the lifetime, the address and the target key. */
export function checkEmailedCredential(params: EmailedCredentialRequest): void {
  sessionSeconds(params.expirationSeconds);
  checkEmail(params.email, "email");
  requireTargetKey(params.targetPublicKey);
}

/**
 * Issues an expiring API key of `credentialType` to the user holding the (verified) email, encrypted to the
 * request's target key, and emails its bundle once the activity commits — when the organization's feature
 * and an email channel allow it.
 */
export async function emailCredential(
  ctx: ActivityContext,
  params: EmailedCredentialRequest,
  credential: {
    feature: string;
    disabledBy: string;
    credentialType: string;
    apiKeyName: string;
    invalidateExisting?: boolean;
    purpose: "login" | "recovery";
  },
): Promise<{ userId: string; apiKeyId: string }> {
  requireFeature(ctx.organization, credential.feature, credential.disabledBy);
  requireChannel(ctx, "OTP_TYPE_EMAIL");
  const user = await userByContact(ctx.tx, ctx.organization.id, "OTP_TYPE_EMAIL", params.email);
  const { apiKeyId, credentialBundle, seconds } = await issueCredential(ctx, {
    userId: user.id,
    targetPublicKey: params.targetPublicKey,
    credentialType: credential.credentialType,
    apiKeyName: credential.apiKeyName,
    expirationSeconds: params.expirationSeconds,
    invalidateExisting: credential.invalidateExisting,
  });
  const message = bundleMessage({
    to: params.email,
    appName: params.emailCustomization.appName,
    purpose: credential.purpose,
    bundle: credentialBundle,
    minutes: Math.max(1, Math.round(seconds / 60)),
    params,
  });
  ctx.afterCommit(() => deliver(ctx.services.messaging, message));
  return { userId: user.id, apiKeyId };
}
