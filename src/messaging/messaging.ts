/**
 * How Strongroom reaches people: email (one-time codes, email auth, recovery) and text messages (SMS,
 * WhatsApp). Small interfaces so that SMTP and the HTTP hook are replaceable and separately tested.
 */
export interface OutgoingEmail {
  to: string;
  /** The sender; defaults to SMTP_FROM. */
  from?: { address: string; name?: string };
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(email: OutgoingEmail): Promise<void>;
}

export type TextChannel = "SMS" | "WHATSAPP";

export interface OutgoingText {
  /** E.164 phone number. */
  to: string;
  channel: TextChannel;
  text: string;
}

export interface TextSender {
  send(message: OutgoingText): Promise<void>;
}

/** What is configured; an absent channel means sending over it is refused, naming the variable to set. */
export interface Messaging {
  email?: Mailer;
  text?: TextSender;
}
