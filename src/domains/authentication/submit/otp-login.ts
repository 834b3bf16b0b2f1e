import { Type, type Static } from "@sinclair/typebox";
import { verifyClientSignature } from "../../../auth/client-signature.js";
import { verifyVerificationToken, type VerificationClaims } from "../../../auth/verification-token.js";
import type { Services } from "../../../services.js";
import type { OrganizationRow } from "../../../records/organization.js";
import { invalidField } from "../../../errors.js";
import { Int64String } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { consumeVerificationToken, markContactVerified, userByContact } from "../../users/contacts.js";
import { checkLoginProfile, checkLoginRequest, loginSession } from "../../sessions/sessions.js";

export const ClientSignatureParams = Type.Object({
  publicKey: Type.String({ minLength: 1, maxLength: 200 }),
  scheme: Type.String({ minLength: 1 }),
  message: Type.String({ minLength: 1, maxLength: 10_000 }),
  signature: Type.String({ minLength: 1, maxLength: 200 }),
});

export const otpLogin = defineActivity({
  operation: "otp_login",
  type: "ACTIVITY_TYPE_OTP_LOGIN_V2",
  intentKey: "otpLoginIntentV2",
  resultKey: "otpLoginResult",
  secretFields: { intent: ["verificationToken"] },
  result: Type.Object({ session: Type.String() }),
  sdkMethod: "otpLogin",
  summary:
    "Log in with a verification token from verify_otp and a client signature by its key: register the session key and return a session JWT",
  resource: "AUTH",
  action: "CREATE",
  parameters: Type.Object({
    verificationToken: Type.String({ minLength: 1, maxLength: 10_000 }),
    publicKey: Type.String({ minLength: 1, maxLength: 200 }),
    clientSignature: ClientSignatureParams,
    expirationSeconds: Type.Optional(Int64String()),
    invalidateExisting: Type.Optional(Type.Boolean()),
    sessionProfileId: Type.Optional(Type.String()),
  }),
  policyParams: { session_profile_id: "sessionProfileId" },
  parentMayInitiate: true,
  // The token, its scope and the client's signature are input: checked at submission, and again at execution
  // (the claims are needed there, and the token may have expired meanwhile).
  enrolls: (params) => ({ factors: ["session"], sessionProfileId: params.sessionProfileId }),
  async validate({ db, organization, services, now }, params) {
    checkLoginRequest(params);
    await checkLoginProfile(db, organization, params);
    await checkedLogin(services, organization, now, params);
  },
  async execute(ctx, params) {
    const { organization, now, services } = ctx;
    const claims = await checkedLogin(services, organization, now, params);
    const user = await userByContact(ctx.tx, organization.id, claims.verification_type, claims.contact);
    await consumeVerificationToken(ctx, claims, "USAGE_TYPE_LOGIN");
    await markContactVerified(ctx.tx, organization.id, claims.verification_type, claims.contact, now, user.id);
    return loginSession(ctx, organization.id, user.id, params);
  },
});

/** The verification token's claims, once the token, its scope and the client's signature of this login check out. */
async function checkedLogin(
  services: Services,
  organization: OrganizationRow,
  now: Date,
  params: { verificationToken: string; publicKey: string; clientSignature: Static<typeof ClientSignatureParams> },
): Promise<VerificationClaims> {
  const claims = await verifyVerificationToken(services.signer, params.verificationToken, { now, field: "verificationToken" });
  // Documented scope: a token serves the organization that issued it, and a parent's token its sub-organizations.
  if (!claims.organization_id || (claims.organization_id !== organization.id && claims.organization_id !== organization.parent_id)) {
    throw invalidField(
      "verificationToken",
      `it was issued for organization ${String(claims.organization_id)}, which is neither ${organization.id} nor its parent`,
    );
  }
  if (!claims.public_key)
    throw invalidField("verificationToken", "it names no public_key, so no client signature can be checked against it");
  const message = verifyClientSignature(params.clientSignature, {
    publicKey: claims.public_key,
    tokenId: claims.id,
    usage: "USAGE_TYPE_LOGIN",
    field: "clientSignature",
  });
  const login = message.login as { publicKey?: unknown } | undefined;
  if (login?.publicKey !== params.publicKey) {
    throw invalidField(
      "clientSignature",
      `the signed message logs in ${JSON.stringify(login?.publicKey)}, not the publicKey ${params.publicKey} of this request`,
    );
  }
  return claims;
}
