/**
 * Outgoing email, through the operator's SMTP server (`CLAWDECK_SMTP_URL`, from `CLAWDECK_MAIL_FROM`). Without a
 * server configured there is no mailer, and what would have been mailed is shown to be passed on by hand.
 */
import nodemailer, { type Transporter } from "nodemailer";
import type { Env } from "../env";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Sends one message; throws when the server refuses it or cannot be reached in time. */
  send(mail: Mail): Promise<void>;
}

export const DEFAULT_MAIL_FROM = "Clawdeck <no-reply@clawdeck.local>";

/** The mailer of `env`'s SMTP server, or null when none is configured. Connections time out in seconds, not minutes. */
export function mailerFromEnv(env: Pick<Env, "CLAWDECK_SMTP_URL" | "CLAWDECK_MAIL_FROM">): Mailer | null {
  if (!env.CLAWDECK_SMTP_URL) return null;
  const from = env.CLAWDECK_MAIL_FROM ?? DEFAULT_MAIL_FROM;
  let transport: Transporter | null = null;
  return {
    async send(mail) {
      transport ??= nodemailer.createTransport(env.CLAWDECK_SMTP_URL!, { from });
      // The transport's own timeouts, so a server that never answers costs a request seconds at most.
      Object.assign(transport.options, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 15_000 });
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

/** What went wrong with a send, in a sentence a person can act on (never the server's credentials). */
export function mailFailure(error: unknown): string {
  const code = typeof error === "object" && error && "code" in error ? String((error as { code: unknown }).code) : "";
  if (code === "ECONNREFUSED" || code === "ESOCKET" || code === "ECONNECTION" || code === "ETIMEDOUT") {
    return "The mail server could not be reached.";
  }
  if (code === "EAUTH") return "The mail server refused the sign-in.";
  if (code === "EENVELOPE") return "The mail server refused the address.";
  return "The mail server refused the message.";
}

/** The password in an SMTP URL, for the log scrubber; undefined without one. */
export function smtpPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
