import { signWithApiKey } from "@turnkey/api-key-stamper";
import { encryptOtpCodeToBundle, generateP256KeyPair } from "@turnkey/crypto";
import { describe, expect, it } from "vitest";
import { initRootWithClient, startLoggedServer } from "../helpers/logged-server.js";
import { startMailReceiver } from "../helpers/mail-receiver.js";

describe("one-time codes at rest, in logs and in responses", () => {
  it("never appear: only an HMAC under a sealed per-code key is stored", async () => {
    const mail = await startMailReceiver();
    const server = await startLoggedServer({ SMTP_URL: mail.url });
    const responses: unknown[] = [];
    const record = <T>(value: T): T => {
      responses.push(value);
      return value;
    };
    try {
      const { root, client } = await initRootWithClient(server);
      await client.updateUserEmail({ userId: root.userId, userEmail: "root@example.com" });
      const codes: string[] = [];
      const signer = server.services.signer.publicKeyHex;
      for (const contact of ["root@example.com", "other@example.com"]) {
        const started = record(await client.initOtp({ otpType: "OTP_TYPE_EMAIL", contact, appName: "Acme" }));
        const code = /verification code is ([0-9A-Z]+)/.exec((await mail.next(contact)).parsed.text ?? "")![1]!;
        codes.push(code);
        const key = generateP256KeyPair();
        // A wrong guess first (it fails, and is counted), then the code.
        const wrong = code.startsWith("0") ? "1".repeat(code.length) : "0".repeat(code.length);
        record(
          await client.verifyOtp({
            otpId: started.otpId,
            encryptedOtpBundle: await encryptOtpCodeToBundle(wrong, started.otpEncryptionTargetBundle, key.publicKey, signer),
          }),
        );
        const verified = record(
          await client.verifyOtp({
            otpId: started.otpId,
            encryptedOtpBundle: await encryptOtpCodeToBundle(code, started.otpEncryptionTargetBundle, key.publicKey, signer),
          }),
        );
        if (contact !== "root@example.com") continue;
        const tokenId = (JSON.parse(Buffer.from(verified.verificationToken.split(".")[1]!, "base64url").toString()) as { id: string }).id;
        const session = generateP256KeyPair();
        const message = JSON.stringify({ login: { publicKey: session.publicKey }, tokenId, type: "USAGE_TYPE_LOGIN" });
        const signature = await signWithApiKey({ content: message, publicKey: key.publicKey, privateKey: key.privateKey });
        const login = record(
          await client.otpLogin({
            verificationToken: verified.verificationToken,
            publicKey: session.publicKey,
            clientSignature: { publicKey: key.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message, signature },
          }),
        );
        expect(login.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      }
      record(await client.getActivities({}));
      expect(codes).toHaveLength(2);

      const tables = await server.services.db.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
      );
      let database = "";
      for (const { tablename } of tables) database += JSON.stringify(await server.services.db.query(`SELECT * FROM "${tablename}"`));
      const [stored] = await server.services.db.query<{ attempts: number; code_hmac: string }>(
        "SELECT attempts, code_hmac FROM otp_codes ORDER BY created_at LIMIT 1",
      );
      expect(stored!.attempts).toBe(2);
      expect(stored!.code_hmac).toMatch(/^[0-9a-f]{64}$/);
      const places = { database, logs: server.log(), responses: JSON.stringify(responses) };
      expect(places.logs).toContain("/public/v1/submit/verify_otp");
      for (const code of codes) {
        for (const [place, text] of Object.entries(places)) {
          expect(text.includes(code), `the code appears in the ${place}`).toBe(false);
          expect(text.includes(Buffer.from(code).toString("hex")), `the code appears in the ${place} as hex`).toBe(false);
        }
      }
    } finally {
      await server.close();
      await mail.close();
    }
  }, 90_000);
});
