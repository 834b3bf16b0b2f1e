import { Type } from "@sinclair/typebox";
import { failedPrecondition, invalidField } from "../../../errors.js";
import { AUTH_METHODS, type AuthProxyConfigRow, type AuthProxySettings } from "../configs.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkEmail } from "../../users/users.js";

const Strings = (maxItems: number) => Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems });

function checkRange(value: number | undefined, field: string, min: number, max: number): void {
  if (value !== undefined && (value < min || value > max)) throw invalidField(field, `${value} is outside ${min}–${max}`);
}

/** Exact origins (scheme://host[:port]) or `*`; partial wildcards are refused, as the API documents. */
function checkOrigins(origins: string[]): void {
  for (const [index, origin] of origins.entries()) {
    const field = `allowedOrigins[${index}]`;
    if (origin === "*") continue;
    if (origin.includes("*"))
      throw invalidField(field, `${JSON.stringify(origin)}: partial wildcards are not supported; list exact origins or "*"`);
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw invalidField(field, `${JSON.stringify(origin)} is not an origin such as https://app.example.com`);
    }
    if (!["http:", "https:"].includes(parsed.protocol) || parsed.origin !== origin) {
      throw invalidField(
        field,
        `${JSON.stringify(origin)} is not an exact origin (scheme://host[:port], no path or trailing slash); e.g. ${JSON.stringify(parsed.origin)}`,
      );
    }
  }
}

function checkUrl(value: string | undefined, field: string): void {
  if (value === undefined) return;
  try {
    const url = new URL(value);
    if (!["http:", "https:"].includes(url.protocol)) throw new Error("scheme");
  } catch {
    throw invalidField(field, `${JSON.stringify(value)} is not an http(s) URL`);
  }
}

export const updateAuthProxyConfig = defineActivity({
  operation: "update_auth_proxy_config",
  type: "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG",
  intentKey: "updateAuthProxyConfigIntent",
  resultKey: "updateAuthProxyConfigResult",
  result: Type.Object({ configId: Type.String() }),
  sdkMethod: "updateAuthProxyConfig",
  summary: "Change the auth proxy's settings (origins, methods, session and OTP lifetimes, email, wallet kit); answers its config id",
  resource: "AUTH_PROXY",
  action: "UPDATE",
  parameters: Type.Object({
    allowedOrigins: Type.Optional(Strings(100)),
    allowedAuthMethods: Type.Optional(Strings(AUTH_METHODS.length)),
    sendFromEmailAddress: Type.Optional(Type.String({ maxLength: 320 })),
    replyToEmailAddress: Type.Optional(Type.String({ maxLength: 320 })),
    sendFromEmailSenderName: Type.Optional(Type.String({ maxLength: 256 })),
    emailAuthTemplateId: Type.Optional(Type.String({ maxLength: 256 })),
    otpTemplateId: Type.Optional(Type.String({ maxLength: 256 })),
    emailCustomizationParams: Type.Optional(
      Type.Object({
        appName: Type.Optional(Type.String({ maxLength: 256 })),
        logoUrl: Type.Optional(Type.String({ maxLength: 2048 })),
        magicLinkTemplate: Type.Optional(Type.String({ maxLength: 2048 })),
        templateVariables: Type.Optional(Type.String({ maxLength: 16384 })),
        templateId: Type.Optional(Type.String({ maxLength: 256 })),
      }),
    ),
    smsCustomizationParams: Type.Optional(Type.Object({ template: Type.Optional(Type.String({ maxLength: 1024 })) })),
    walletKitSettings: Type.Optional(
      Type.Object({
        enabledSocialProviders: Type.Optional(Strings(32)),
        oauthClientIds: Type.Optional(
          Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.String({ minLength: 1, maxLength: 512 })),
        ),
        oauthRedirectUrl: Type.Optional(Type.String({ maxLength: 2048 })),
      }),
    ),
    otpExpirationSeconds: Type.Optional(Type.Integer()),
    verificationTokenExpirationSeconds: Type.Optional(Type.Integer()),
    sessionExpirationSeconds: Type.Optional(Type.Integer()),
    otpAlphanumeric: Type.Optional(Type.Boolean()),
    otpLength: Type.Optional(Type.Integer()),
    verificationTokenRequiredForGetAccountPii: Type.Optional(Type.Boolean()),
    socialLinkingClientIds: Type.Optional(Strings(100)),
    captchaEnabled: Type.Optional(Type.Boolean()),
  }),
  async validate(_ctx, params) {
    if (params.captchaEnabled) {
      throw invalidField(
        "captchaEnabled",
        "Strongroom cannot verify captcha (Cloudflare Turnstile) tokens: that needs Cloudflare's online siteverify service, and it will not pretend to check them; leave captchaEnabled false",
      );
    }
    if (params.allowedOrigins) checkOrigins(params.allowedOrigins);
    for (const [index, method] of (params.allowedAuthMethods ?? []).entries()) {
      if (!(AUTH_METHODS as readonly string[]).includes(method))
        throw invalidField(`allowedAuthMethods[${index}]`, `${JSON.stringify(method)} is not one of ${AUTH_METHODS.join(", ")}`);
    }
    for (const field of ["sendFromEmailAddress", "replyToEmailAddress"] as const) {
      if (params[field]) checkEmail(params[field], field);
    }
    checkRange(params.otpLength, "otpLength", 6, 9);
    checkRange(params.otpExpirationSeconds, "otpExpirationSeconds", 1, 600);
    checkRange(params.verificationTokenExpirationSeconds, "verificationTokenExpirationSeconds", 1, 86400);
    checkRange(params.sessionExpirationSeconds, "sessionExpirationSeconds", 1, 31_536_000);
    checkUrl(params.walletKitSettings?.oauthRedirectUrl, "walletKitSettings.oauthRedirectUrl");
    checkUrl(params.emailCustomizationParams?.logoUrl, "emailCustomizationParams.logoUrl");
  },
  async execute({ tx, organization, now }, params) {
    const [config] = await tx.query<AuthProxyConfigRow>("SELECT * FROM auth_proxy_configs WHERE organization_id = $1 FOR UPDATE", [
      organization.id,
    ]);
    if (!config)
      throw failedPrecondition(
        `organization ${organization.id} has no auth proxy; enable_auth_proxy creates one`,
        "AUTH_PROXY_NOT_ENABLED",
      );

    // Fields given replace the stored ones; fields left out keep their values.
    const settings: AuthProxySettings = { ...config.settings };
    for (const [key, value] of Object.entries(params)) {
      if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
    }
    await tx.query("UPDATE auth_proxy_configs SET settings = $2::jsonb, updated_at = $3 WHERE id = $1", [
      config.id,
      JSON.stringify(settings),
      now,
    ]);
    return { configId: config.id };
  },
});
