import { Type, type Static } from "@sinclair/typebox";
import { hpkeSeal } from "../../crypto/hpke.js";
import { otpTargetPublicKey } from "../../domains/authentication/otp.js";
import { invalidArgument, notFound } from "../../errors.js";
import { takeFromBudget } from "../../rate-limits/budget.js";
import { submitAsProxy } from "../act.js";
import { sessionExpirationSeconds } from "../../domains/auth-proxy-config/configs.js";
import { defineEndpoint, type ProxyContext } from "../endpoint.js";
import { suborgOfVerificationToken } from "../lookup.js";
import { otpMethod, requireMethod } from "../methods.js";

const InitBody = Type.Object({
  otpType: Type.String({ minLength: 1 }),
  contact: Type.String({ minLength: 1, maxLength: 320 }),
  emailCustomization: Type.Optional(Type.Object({ templateId: Type.Optional(Type.String({ maxLength: 256 })) })),
});

const ClientSignature = Type.Object({
  publicKey: Type.String({ minLength: 1 }),
  scheme: Type.String({ minLength: 1 }),
  message: Type.String({ minLength: 1 }),
  signature: Type.String({ minLength: 1 }),
});

/** init_otp in the config's organization, with the config's OTP and email settings. */
async function initOtp(ctx: ProxyContext, body: Static<typeof InitBody>) {
  requireMethod(ctx, otpMethod(body.otpType));
  await spendCodeRequest(ctx);
  const { settings } = ctx;
  const { appName, ...emailSettings } = settings.emailCustomizationParams ?? {};
  const templateId = body.emailCustomization?.templateId ?? emailSettings.templateId;
  const emailCustomization = { ...emailSettings, ...(templateId ? { templateId } : {}) };
  const { result } = await submitAsProxy(ctx, "init_otp", ctx.config.organization_id, {
    otpType: body.otpType,
    contact: body.contact,
    appName: appName || ctx.organization.name,
    ...(settings.otpLength !== undefined ? { otpLength: settings.otpLength } : {}),
    ...(settings.otpAlphanumeric !== undefined ? { alphanumeric: settings.otpAlphanumeric } : {}),
    ...(settings.otpExpirationSeconds !== undefined ? { expirationSeconds: String(settings.otpExpirationSeconds) } : {}),
    ...(settings.sendFromEmailAddress ? { sendFromEmailAddress: settings.sendFromEmailAddress } : {}),
    ...(settings.sendFromEmailSenderName ? { sendFromEmailSenderName: settings.sendFromEmailSenderName } : {}),
    ...(settings.replyToEmailAddress ? { replyToEmailAddress: settings.replyToEmailAddress } : {}),
    ...(Object.keys(emailCustomization).length > 0 ? { emailCustomization } : {}),
    ...(settings.smsCustomizationParams?.template ? { smsCustomization: settings.smsCustomizationParams } : {}),
  });
  return result as { otpId: string; otpEncryptionTargetBundle: string };
}

/**
 * Codes asked for from one client address, across configs (the address is the caller's resource, not the
 * config's). Counted in the database, so every process of a cluster spends the same budget; counted per
 * request, whether or not init_otp then sends a code.
 */
async function spendCodeRequest(ctx: ProxyContext): Promise<void> {
  const { limits } = ctx.services;
  const budget = {
    key: `otp-address:${ctx.clientAddress}`,
    limit: limits.otpCodesPerAddress,
    windowSeconds: limits.otpWindowSeconds,
    describe: `codes per client address (${ctx.clientAddress})`,
  };
  const now = ctx.services.clock();
  await ctx.services.db.transaction((tx) => takeFromBudget(tx, budget, now));
}

async function verifyOtp(ctx: ProxyContext, otpId: string, encryptedOtpBundle: string) {
  const expiry = ctx.settings.verificationTokenExpirationSeconds;
  const { result } = await submitAsProxy(ctx, "verify_otp", ctx.config.organization_id, {
    otpId,
    encryptedOtpBundle,
    ...(expiry !== undefined ? { expirationSeconds: String(expiry) } : {}),
  });
  return { verificationToken: result.verificationToken };
}

/**
 * The legacy otp_verify sends the code itself. The proxy does what a client of verify_otp does: it encrypts
 * {otp_code, public_key} to the code's target key (the one its otpEncryptionTargetBundle carries), found by
 * the code's id — one primary-key read, not a search of the organization's init_otp activities.
 */
async function encryptCodeForOtp(ctx: ProxyContext, otpId: string, otpCode: string, publicKey: string): Promise<string> {
  const targetPublic = await otpTargetPublicKey(ctx.services.db, ctx.services, ctx.config.organization_id, otpId);
  if (!targetPublic)
    throw notFound(`otpId: no OTP ${JSON.stringify(otpId)} was sent through auth proxy config ${ctx.config.id}`, "OTP_NOT_FOUND");
  const plaintext = JSON.stringify({ otp_code: otpCode, public_key: publicKey });
  const sealed = await hpkeSeal(new TextEncoder().encode(plaintext), new Uint8Array(Buffer.from(targetPublic, "hex")));
  return JSON.stringify({
    encappedPublic: Buffer.from(sealed.encapsulatedKey).toString("hex"),
    ciphertext: Buffer.from(sealed.ciphertext).toString("hex"),
  });
}

const loginFields = {
  verificationToken: Type.String({ minLength: 1 }),
  publicKey: Type.String({ minLength: 1 }),
  invalidateExisting: Type.Optional(Type.Boolean()),
  organizationId: Type.Optional(Type.String({ minLength: 1 })),
};

interface LoginInput {
  verificationToken: string;
  publicKey: string;
  clientSignature?: Static<typeof ClientSignature>;
  invalidateExisting?: boolean;
  organizationId?: string;
}

async function otpLogin(ctx: ProxyContext, body: LoginInput) {
  const organizationId = body.organizationId ?? (await suborgOfVerificationToken(ctx, body.verificationToken));
  const { result } = await submitAsProxy(ctx, "otp_login", organizationId, {
    verificationToken: body.verificationToken,
    publicKey: body.publicKey,
    ...(body.clientSignature ? { clientSignature: body.clientSignature } : {}),
    expirationSeconds: String(sessionExpirationSeconds(ctx.settings)),
    ...(body.invalidateExisting !== undefined ? { invalidateExisting: body.invalidateExisting } : {}),
  });
  return { session: result.session };
}

export const otpInit = defineEndpoint({
  path: "/v1/otp_init",
  summary: "Send a one-time code by email or SMS (init_otp in the config's organization); answers its otpId",
  body: InitBody,
  async handle(ctx, body) {
    return { otpId: (await initOtp(ctx, body)).otpId };
  },
});

export const otpInitV2 = defineEndpoint({
  path: "/v1/otp_init_v2",
  summary: "Send a one-time code; answers its otpId and the signed bundle of the key the client encrypts the code to",
  body: InitBody,
  async handle(ctx, body) {
    const { otpId, otpEncryptionTargetBundle } = await initOtp(ctx, body);
    return { otpId, otpEncryptionTargetBundle };
  },
});

export const otpVerify = defineEndpoint({
  path: "/v1/otp_verify",
  summary:
    "Check a code given in plain (encrypted to the OTP's key by the proxy); answers a verification token bound to publicKey (required here)",
  body: Type.Object({
    otpId: Type.String({ minLength: 1 }),
    otpCode: Type.String({ minLength: 1, maxLength: 64 }),
    publicKey: Type.Optional(Type.String({ minLength: 1 })),
  }),
  async handle(ctx, body) {
    // Optional upstream, but verify_otp binds every token to a key, and otp_login needs that key's signature.
    if (body.publicKey === undefined || !/^0[23][0-9a-fA-F]{64}$/.test(body.publicKey)) {
      throw invalidArgument(
        "publicKey: required here, a compressed P-256 public key (66 hex characters): this server binds every verification token to a key, whose client signature otp_login and signup then need",
        [{ field: "publicKey", description: "compressed P-256 hex" }],
      );
    }
    return verifyOtp(ctx, body.otpId, await encryptCodeForOtp(ctx, body.otpId, body.otpCode, body.publicKey));
  },
});

export const otpVerifyV2 = defineEndpoint({
  path: "/v1/otp_verify_v2",
  summary: "Check a code the client encrypted to the OTP's key (verify_otp); answers a verification token",
  body: Type.Object({ otpId: Type.String({ minLength: 1 }), encryptedOtpBundle: Type.String({ minLength: 1 }) }),
  async handle(ctx, body) {
    return verifyOtp(ctx, body.otpId, body.encryptedOtpBundle);
  },
});

export const otpLoginV1 = defineEndpoint({
  path: "/v1/otp_login",
  summary:
    "Log in with a verification token (otp_login in the user's sub-organization, found by the token's contact when organizationId is left out)",
  body: Type.Object({ ...loginFields, clientSignature: Type.Optional(ClientSignature) }),
  handle: otpLogin,
});

export const otpLoginV2 = defineEndpoint({
  path: "/v1/otp_login_v2",
  summary: "Log in with a verification token and the client signature of its key; answers a session JWT",
  body: Type.Object({ ...loginFields, clientSignature: ClientSignature }),
  handle: otpLogin,
});
