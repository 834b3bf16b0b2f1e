import { TurnkeyClient } from "@turnkey/core";
import { encryptOtpCodeToBundle } from "@turnkey/crypto";
import type { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { expect } from "vitest";
import { verificationCodeIn, type ReceivedMail } from "./mail-receiver.js";
import { activityBody, p256Stamp, post } from "./requests.js";
import type { TestServer } from "./server.js";

export interface SubmittedActivity {
  status: string;
  result: Record<string, Record<string, unknown>>;
  failure: { message: string } | null;
}

/** The claims of a JWT (session or verification token), unverified. */
export const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

/** Submits an activity as the root user of the test server's root organization (HTTP 200 expected). */
export async function submitAsRoot(
  server: TestServer,
  operation: string,
  type: string,
  parameters: unknown,
  organizationId = server.root.organizationId,
): Promise<SubmittedActivity> {
  const body = activityBody(type, organizationId, parameters);
  const response = await post(`${server.url}/public/v1/submit/${operation}`, body, {
    "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!),
  });
  expect(response.status, JSON.stringify(response.json)).toBe(200);
  return response.json.activity as SubmittedActivity;
}

/** @turnkey/core's own HTTP client, pointed at Strongroom and its auth proxy. */
export function coreClient(server: TestServer, configId: string, passkeyStamper?: WebauthnStamper) {
  const client = new TurnkeyClient(
    { apiBaseUrl: server.url, authProxyUrl: server.authProxyUrl, authProxyConfigId: configId, organizationId: server.root.organizationId },
    undefined,
    passkeyStamper as never,
  );
  return client.createHttpClient();
}

/** The error a core call was refused with. Core and sdk-server each bundle their own TurnkeyRequestError class, so it is told by name. */
export async function coreRefusal(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as { name: string; code: number; message: string },
  );
  expect(error?.name).toBe("TurnkeyRequestError");
  return error!;
}

/**
 * What @turnkey/core's initOtp and verifyOtp do through the auth proxy: otp_init_v2 for `email`, the emailed
 * code read from `mail`, then otp_verify_v2 with the code encrypted and bound to `publicKey`. The verification token.
 */
export async function emailedVerificationToken(
  server: TestServer,
  proxy: ReturnType<typeof coreClient>,
  mail: { next(recipient: string): Promise<ReceivedMail> },
  email: string,
  publicKey: string,
): Promise<string> {
  const { otpId, otpEncryptionTargetBundle } = await proxy.proxyInitOtpV2({ otpType: "OTP_TYPE_EMAIL", contact: email });
  const code = verificationCodeIn((await mail.next(email)).parsed.text ?? "")!;
  const encryptedOtpBundle = await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, publicKey, server.services.signer.publicKeyHex);
  return (await proxy.proxyVerifyOtpV2({ otpId, encryptedOtpBundle })).verificationToken;
}
