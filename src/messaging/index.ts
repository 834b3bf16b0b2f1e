import type { MessagingSettings } from "../config.js";
import type { Messaging } from "./messaging.js";
import { smsWebhookSender } from "./sms-webhook.js";
import { smtpMailer } from "./smtp.js";

export type { Mailer, Messaging, OutgoingEmail, OutgoingText, TextChannel, TextSender } from "./messaging.js";

export function openMessaging(settings: MessagingSettings): Messaging {
  return {
    ...(settings.smtpUrl ? { email: smtpMailer(settings.smtpUrl, settings.smtpFrom) } : {}),
    ...(settings.smsWebhookUrl ? { text: smsWebhookSender(settings.smsWebhookUrl) } : {}),
  };
}
