import type { Transporter } from "nodemailer";
import type { Mailer, OutgoingEmail } from "./messaging.js";

/** Email over SMTP with nodemailer: `smtpUrl` like smtp://user:pass@host:587 (smtps:// for implicit TLS). */
export function smtpMailer(smtpUrl: string, defaultFrom: string): Mailer {
  // nodemailer (about forty modules) is loaded with the first email, not at start.
  let transport: Promise<Transporter> | undefined;
  return {
    async send(email: OutgoingEmail) {
      transport ??= import("nodemailer").then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl));
      await (
        await transport
      ).sendMail({
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
