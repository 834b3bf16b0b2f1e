import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

/** The one-time code in the text of an OTP email Strongroom sent ("… verification code is 123456 …"). */
export const verificationCodeIn = (text: string) => /verification code is ([0-9A-Z]+)/.exec(text)?.[1];

export interface ReceivedMail {
  /** The SMTP envelope's recipients. */
  recipients: string[];
  authenticatedAs?: string;
  parsed: ParsedMail;
}

/**
 * A real SMTP server on loopback (the `smtp-server` package) that requires the given credentials and
 * parses every message it accepts with `mailparser`. `url` is what SMTP_URL should be set to.
 */
export async function startMailReceiver(credentials = { user: "mailer", pass: "s3cret" }) {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.pass) callback(null, { user: auth.username });
      else callback(new Error("invalid credentials"));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          received.push({
            recipients: session.envelope.rcptTo.map((r) => r.address),
            authenticatedAs: session.user as string | undefined,
            parsed,
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://${credentials.user}:${credentials.pass}@127.0.0.1:${port}`,
    received,
    /** The next message to `to` not yet taken by an earlier call. */
    async next(to: string, timeoutMs = 10_000): Promise<ReceivedMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = received.findIndex((m) => m.recipients.includes(to));
        if (index >= 0) return received.splice(index, 1)[0]!;
        if (Date.now() > deadline) throw new Error(`mail receiver: no message to ${to} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
