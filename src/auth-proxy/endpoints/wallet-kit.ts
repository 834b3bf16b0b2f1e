import { Type } from "@sinclair/typebox";
import { AUTH_METHODS, sessionExpirationSeconds } from "../../domains/auth-proxy-config/configs.js";
import { defineEndpoint } from "../endpoint.js";

/** Defaults init_otp applies when the config sets none: 9 characters, alphanumeric. */
const DEFAULT_OTP_LENGTH = 9;

export const walletKitConfig = defineEndpoint({
  path: "/v1/wallet_kit_config",
  summary:
    "The settings a wallet kit UI needs: enabled methods and social providers, session lifetime, organization, OAuth client ids and redirect URL, OTP format",
  body: Type.Object({}),
  async handle({ settings, config }) {
    const methods = settings.allowedAuthMethods?.length ? settings.allowedAuthMethods : [...AUTH_METHODS];
    const kit = settings.walletKitSettings ?? {};
    const enabledProviders = [
      ...methods.filter((m) => m !== "oauth"),
      ...(methods.includes("oauth") ? (kit.enabledSocialProviders ?? []) : []),
    ];
    return {
      enabledProviders,
      sessionExpirationSeconds: String(sessionExpirationSeconds(settings)),
      organizationId: config.organization_id,
      oauthClientIds: kit.oauthClientIds ?? {},
      ...(kit.oauthRedirectUrl ? { oauthRedirectUrl: kit.oauthRedirectUrl } : {}),
      otpAlphanumeric: settings.otpAlphanumeric ?? true,
      otpLength: String(settings.otpLength ?? DEFAULT_OTP_LENGTH),
    };
  },
});

export const walletKitClientParams = defineEndpoint({
  path: "/v1/wallet_kit_client_params",
  summary: "Client parameters: no turnstileSiteKey, since Strongroom does not offer captcha",
  body: Type.Object({}),
  async handle() {
    return {};
  },
});
