import { permissionDenied } from "../errors.js";
import { allowsMethod, type AuthMethod } from "../domains/auth-proxy-config/configs.js";
import type { ProxyContext } from "./endpoint.js";

/** Refuses (403) a method the config's allowedAuthMethods leaves out. */
export function requireMethod(ctx: ProxyContext, method: AuthMethod): void {
  if (allowsMethod(ctx.settings, method)) return;
  throw permissionDenied(
    `auth proxy config ${ctx.config.id} does not allow ${method} authentication (allowedAuthMethods: ${(ctx.settings.allowedAuthMethods ?? []).join(", ")})`,
    "AUTH_METHOD_NOT_ALLOWED",
  );
}

/** The OTP channel of an otpType or verification type (OTP_TYPE_EMAIL → email, OTP_TYPE_SMS → sms). */
export function otpMethod(otpType: string): AuthMethod {
  return /SMS|WHATSAPP/.test(otpType) ? "sms" : "email";
}
