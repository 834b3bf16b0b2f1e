import type { Queryable } from "../../store/database.js";

/** Documented defaults: any origin, sessions of 900 seconds, no captcha, account lookups without a token. */
export const DEFAULT_ALLOWED_ORIGINS = ["*"];
export const DEFAULT_SESSION_EXPIRATION_SECONDS = 900;

/**
 * The authentication methods an auth proxy can be limited to (`allowedAuthMethods`; empty allows all):
 * `email` and `sms` (OTP by that channel), `passkey` (signup with authenticators), `oauth` (OIDC login and
 * OAuth 2.0 code exchange) and `wallet` (signup with API keys of an external wallet, i.e. any signup that
 * registers only API keys).
 */
export const AUTH_METHODS = ["email", "sms", "passkey", "oauth", "wallet"] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

export interface WalletKitSettings {
  enabledSocialProviders?: string[];
  oauthClientIds?: Record<string, string>;
  oauthRedirectUrl?: string;
}

/** Everything update_auth_proxy_config sets, stored as given (field names of the API's intent). */
export interface AuthProxySettings {
  allowedOrigins?: string[];
  allowedAuthMethods?: string[];
  sendFromEmailAddress?: string;
  replyToEmailAddress?: string;
  sendFromEmailSenderName?: string;
  emailAuthTemplateId?: string;
  otpTemplateId?: string;
  emailCustomizationParams?: Record<string, string>;
  smsCustomizationParams?: { template?: string };
  walletKitSettings?: WalletKitSettings;
  otpExpirationSeconds?: number;
  verificationTokenExpirationSeconds?: number;
  sessionExpirationSeconds?: number;
  otpAlphanumeric?: boolean;
  otpLength?: number;
  verificationTokenRequiredForGetAccountPii?: boolean;
  socialLinkingClientIds?: string[];
  captchaEnabled?: boolean;
}

export interface AuthProxyConfigRow {
  id: string;
  organization_id: string;
  user_id: string;
  public_key: string;
  sealed_private_key: string;
  policy_id: string;
  enabled: boolean;
  settings: AuthProxySettings;
  created_at: Date;
  updated_at: Date;
}

/** The kek context the proxy key is sealed under: bound to its config, so a sealed key cannot be moved. */
export const proxyKeyContext = (configId: string) => `auth-proxy-key:${configId}`;

export async function findAuthProxyConfig(db: Queryable, configId: string): Promise<AuthProxyConfigRow | undefined> {
  const [row] = await db.query<AuthProxyConfigRow>("SELECT * FROM auth_proxy_configs WHERE id = $1", [configId]);
  return row;
}

export async function findAuthProxyConfigOfOrganization(db: Queryable, organizationId: string): Promise<AuthProxyConfigRow | undefined> {
  const [row] = await db.query<AuthProxyConfigRow>("SELECT * FROM auth_proxy_configs WHERE organization_id = $1", [organizationId]);
  return row;
}

export const allowedOrigins = (settings: AuthProxySettings): string[] => settings.allowedOrigins ?? DEFAULT_ALLOWED_ORIGINS;

export const sessionExpirationSeconds = (settings: AuthProxySettings): number =>
  settings.sessionExpirationSeconds ?? DEFAULT_SESSION_EXPIRATION_SECONDS;

/** Whether the config lets clients use a method; an empty or absent list allows every method. */
export function allowsMethod(settings: AuthProxySettings, method: AuthMethod): boolean {
  const methods = settings.allowedAuthMethods ?? [];
  return methods.length === 0 || methods.includes(method);
}
