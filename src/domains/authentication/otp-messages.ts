import type { Messaging, OutgoingEmail, OutgoingText } from "../../messaging/index.js";

/** A message ready to go out once its activity commits. */
export type Message = { email: OutgoingEmail } | { text: OutgoingText };

export async function deliver(messaging: Messaging, message: Message): Promise<void> {
  if ("email" in message) {
    if (!messaging.email) throw new Error("email delivery is not configured (SMTP_URL)");
    await messaging.email.send(message.email);
  } else {
    if (!messaging.text) throw new Error("SMS delivery is not configured (SMS_WEBHOOK_URL)");
    await messaging.text.send(message.text);
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface SenderOptions {
  sendFromEmailAddress?: string;
  sendFromEmailSenderName?: string;
  replyToEmailAddress?: string;
}

function sender(options: SenderOptions): Pick<OutgoingEmail, "from" | "replyTo"> {
  return {
    ...(options.sendFromEmailAddress
      ? { from: { address: options.sendFromEmailAddress, name: options.sendFromEmailSenderName || "Notifications" } }
      : {}),
    ...(options.replyToEmailAddress ? { replyTo: options.replyToEmailAddress } : {}),
  };
}

function html(paragraphs: string[], logoUrl?: string): string {
  const logo =
    logoUrl && /^https?:\/\//.test(logoUrl)
      ? `<p><img src="${escapeHtml(logoUrl)}" alt="" style="max-width:340px;max-height:124px"></p>`
      : "";
  return `<!doctype html><html><body>${logo}${paragraphs.map((p) => `<p>${p}</p>`).join("")}</body></html>`;
}

export function otpMessage(input: {
  otpType: string;
  contact: string;
  code: string;
  appName: string;
  seconds: number;
  params: SenderOptions & { emailCustomization?: { logoUrl?: string }; smsCustomization?: { template?: string } };
}): Message {
  const { otpType, contact, code, appName, seconds, params } = input;
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (otpType === "OTP_TYPE_EMAIL") {
    return {
      email: {
        to: contact,
        ...sender(params),
        subject: `${appName} verification code`,
        text: `Your ${appName} verification code is ${code}\n\nIt expires in ${minutes} minute${minutes === 1 ? "" : "s"}. If you did not ask for it, ignore this email.\n`,
        html: html(
          [
            `Your ${escapeHtml(appName)} verification code is`,
            `<strong style="font-size:24px;letter-spacing:2px">${code}</strong>`,
            `It expires in ${minutes} minute${minutes === 1 ? "" : "s"}. If you did not ask for it, ignore this email.`,
          ],
          params.emailCustomization?.logoUrl,
        ),
      },
    };
  }
  const template = params.smsCustomization?.template || `Your ${appName} code is {{.OtpCode}}`;
  return {
    text: { to: contact, channel: otpType === "OTP_TYPE_WHATSAPP" ? "WHATSAPP" : "SMS", text: template.split("{{.OtpCode}}").join(code) },
  };
}

/**
 * Email auth and recovery mail the credential bundle: in a magic link when the request gives a template
 * (`%s` is replaced by the bundle), and as text to paste either way.
 */
export function bundleMessage(input: {
  to: string;
  appName: string;
  purpose: "login" | "recovery";
  bundle: string;
  minutes: number;
  params: SenderOptions & { emailCustomization?: { logoUrl?: string; magicLinkTemplate?: string } };
}): Message {
  const { to, appName, purpose, bundle, minutes, params } = input;
  const template = params.emailCustomization?.magicLinkTemplate;
  const link = template ? template.split("%s").join(encodeURIComponent(bundle)) : undefined;
  const what = purpose === "login" ? `log in to ${appName}` : `recover your ${appName} account`;
  const lifetime = `It expires in ${minutes} minute${minutes === 1 ? "" : "s"}. If you did not ask for it, ignore this email.`;
  return {
    email: {
      to,
      ...sender(params),
      subject: purpose === "login" ? `Log in to ${appName}` : `Recover your ${appName} account`,
      text: `${link ? `Open this link to ${what}:\n${link}\n\nOr paste` : "Paste"} this code into ${appName} to ${what}:\n${bundle}\n\n${lifetime}\n`,
      html: html(
        [
          ...(link
            ? [`<a href="${escapeHtml(link)}">Open this link to ${escapeHtml(what)}</a>`, "Or paste this code:"]
            : [`Paste this code into ${escapeHtml(appName)} to ${escapeHtml(what)}:`]),
          `<code style="word-break:break-all">${escapeHtml(bundle)}</code>`,
          lifetime,
        ],
        params.emailCustomization?.logoUrl,
      ),
    },
  };
}
