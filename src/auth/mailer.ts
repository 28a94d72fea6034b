import { createTransport, type Transporter } from 'nodemailer';

/** One plain-text mail. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** What the server needs of mail: sending one message (nodemailer over SMTP, `mail` in the configuration). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Where mail goes (`mail` of the configuration, checked there): an smtp:// URL or SMTP options, and the sender. */
export interface SmtpSettings {
  readonly smtp: string | { readonly host: string; readonly port: number; readonly secure: boolean; readonly auth?: { readonly user: string; readonly pass: string } };
  readonly from: string;
}

/** SMTP through nodemailer: one transport for the process. */
export function smtpMailer(config: SmtpSettings): Mailer {
  const transport: Transporter = createTransport(config.smtp as Parameters<typeof createTransport>[0]);
  return {
    async send(message) {
      await transport.sendMail({ from: config.from, to: message.to, subject: message.subject, text: message.text });
    },
    close() {
      transport.close();
    },
  };
}
