import nodemailer from "nodemailer";
import type { Mailer, OutgoingEmail } from "./messaging.js";

/** Email over SMTP with nodemailer: `smtpUrl` like smtp://user:pass@host:587 (smtps:// for implicit TLS). */
export function smtpMailer(smtpUrl: string, defaultFrom: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(email: OutgoingEmail) {
      await transport.sendMail({
        from: email.from ? { address: email.from.address, name: email.from.name ?? "Notifications" } : defaultFrom,
        to: email.to,
        ...(email.replyTo ? { replyTo: email.replyTo } : {}),
        subject: email.subject,
        text: email.text,
        html: email.html,
      });
    },
  };
}
