import type { Mailer, Messaging, OutgoingEmail, OutgoingText, TextSender } from "../messaging/index.js";

export interface InboxMessage {
  /** Position in the inbox, from 1. */
  id: number;
  channel: "EMAIL" | "SMS" | "WHATSAPP";
  to: string;
  subject?: string;
  text: string;
  receivedAt: string;
}

/** Kept messages; the oldest are dropped past this, so a long-running dev server stays small. */
const CAPACITY = 1000;

/**
 * Where the dev server delivers email and text messages instead of refusing them for want of SMTP_URL or
 * SMS_WEBHOOK_URL: kept for GET /dev/inbox and echoed to `echo` (the console), codes included.
 */
export interface Inbox {
  messages(to?: string): InboxMessage[];
  clear(): void;
  /** The messaging the dev server's services use: the inbox, then any configured channel as well. */
  messaging(configured: Messaging): Messaging;
}

export function createInbox(now: () => Date, echo: (line: string) => void): Inbox {
  let kept: InboxMessage[] = [];
  let next = 1;
  const keep = (message: Omit<InboxMessage, "id" | "receivedAt">) => {
    const entry = { id: next++, ...message, receivedAt: now().toISOString() };
    kept.push(entry);
    if (kept.length > CAPACITY) kept = kept.slice(-CAPACITY);
    echo(`[inbox] ${entry.channel} to ${entry.to}${entry.subject ? ` — ${entry.subject}` : ""}\n${entry.text}\n`);
  };
  return {
    messages: (to) => (to === undefined ? [...kept] : kept.filter((m) => m.to.toLowerCase() === to.toLowerCase())),
    clear() {
      kept = [];
    },
    messaging(configured) {
      const email: Mailer = {
        async send(message: OutgoingEmail) {
          keep({ channel: "EMAIL", to: message.to, subject: message.subject, text: message.text });
          await configured.email?.send(message);
        },
      };
      const text: TextSender = {
        async send(message: OutgoingText) {
          keep({ channel: message.channel, to: message.to, text: message.text });
          await configured.text?.send(message);
        },
      };
      return { email, text };
    },
  };
}
