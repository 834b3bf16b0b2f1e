import type { OutgoingText, TextSender } from "./messaging.js";

const TIMEOUT_MS = 10_000;

/**
 * SMS and WhatsApp through an HTTP hook the operator runs (in front of Twilio, an SMS gateway…):
 * a POST of JSON {to, channel, text}; any 2xx means accepted, anything else is an error.
 */
export function smsWebhookSender(url: string): TextSender {
  return {
    async send(message: OutgoingText) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ to: message.to, channel: message.channel, text: message.text }),
        redirect: "error",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`SMS_WEBHOOK_URL answered HTTP ${response.status} for a ${message.channel} message`);
    },
  };
}
