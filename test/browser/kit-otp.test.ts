import { OtpType } from "@turnkey/core";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailReceiver, verificationCodeIn } from "../helpers/mail-receiver.js";
import { buildTestApp, hasChromium, saveScreenshot } from "./harness.js";
import { inKit, openKitApp, startKitWorld, waitForAuthenticated, type KitWorld } from "./kit-setup.js";

const HOSTED_TLS_FETCHER_SIGN_KEY =
  "046b4f88421f76b6ba418afc2ea1d8ced671337d7db6b80478a60d8531bf8f17fa9a512f0fef96fc0c9b4cd9dff70b34992e520ce04c79d931f6ff6296b547d201";

describe.skipIf(!hasChromium)("email OTP with the wallet kit in Chromium, through Strongroom's Vite plugin", () => {
  let world: KitWorld;
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let page: Page;

  beforeAll(async () => {
    mail = await startMailReceiver();
    world = await startKitWorld({
      env: { SMTP_URL: mail.url, SMTP_FROM: "Strongroom <no-reply@strongroom.test>" },
      settings: { otpLength: 6, otpAlphanumeric: false },
    });
    page = await openKitApp(world, { authenticator: false });
  }, 180_000);
  afterAll(async () => {
    await world?.close();
    await mail?.close();
  });

  /** Asks for a code by email and reads it from the real SMTP receiver. */
  async function emailedCode(contact: string) {
    const started = await inKit(page, (kit, arg) => kit.initOtp(arg), { otpType: OtpType.Email, contact });
    const code = verificationCodeIn((await mail.next(contact)).parsed.text ?? "");
    expect(code).toMatch(/^[0-9]{6}$/);
    return { ...started, otpCode: code!, contact, otpType: OtpType.Email };
  }

  /** The kit's completeOtp with an emailed code: verify, then signup or stamp_login. */
  const completeOtp = (otp: Awaited<ReturnType<typeof emailedCode>>) =>
    inKit(
      page,
      (kit, otp) =>
        kit.completeOtp({
          otpId: otp.otpId,
          otpCode: otp.otpCode,
          otpEncryptionTargetBundle: otp.otpEncryptionTargetBundle,
          contact: otp.contact,
          otpType: otp.otpType,
        }),
      otp,
    );

  it("the bundle carries Strongroom's signer key in place of the hosted service's pinned keys", async () => {
    const dir = await buildTestApp(world.server.url);
    const bundle = readdirSync(join(dir, "assets"))
      .filter((name) => name.endsWith(".js"))
      .map((name) => readFileSync(join(dir, "assets", name), "utf8"))
      .join("\n");
    expect(bundle).not.toContain(HOSTED_TLS_FETCHER_SIGN_KEY);
    expect(bundle).toContain(world.server.services.signer.publicKeyHex);
  });

  it("core's verifyOtp accepts the code's target bundle signed by Strongroom and returns a verification token", async () => {
    const otp = await emailedCode("zoe@example.com");
    const verified = await inKit(
      page,
      (kit, otp) => kit.verifyOtp({ otpId: otp.otpId, otpCode: otp.otpCode, otpEncryptionTargetBundle: otp.otpEncryptionTargetBundle }),
      otp,
    );
    expect(verified.verificationToken.split(".")).toHaveLength(3);
  });

  it("signs up with an emailed code (completeOtp: verify, then signup with core's client signature)", async () => {
    await completeOtp(await emailedCode("ana@example.com"));
    await waitForAuthenticated(page);
    await page.getByTestId("wallets").locator("li").first().waitFor();
    await saveScreenshot(page, "kit-otp-signed-up");
  });

  it("logs out and logs back in with a new emailed code (completeOtp: verify, then stamp_login with an attested stamp)", async () => {
    const { userId, organizationId } = await inKit(page, async (kit) => kit.session!);
    await inKit(page, (kit) => kit.logout());
    await page.getByTestId("auth-state").filter({ hasText: "unauthenticated" }).waitFor();
    await completeOtp(await emailedCode("ana@example.com"));
    await waitForAuthenticated(page);
    const session = await inKit(page, async (kit) => kit.session!);
    expect(session.userId).toBe(userId);
    expect(session.organizationId).toBe(organizationId);
  });
});
