import { randomUUID } from 'node:crypto';
import { config, isLocal } from '../config.ts';
import { isoNow } from '../model/clock.ts';
import { addToLocalOutbox } from './local-outbox.ts';
import { onFirstUse } from '../first-use.ts';
import { traced } from '../tracer.ts';

export interface Email {
  to: string;
  subject: string;
  text: string;
}

/** The e-mail port: Amazon SES v2 in the cloud; locally the console and the local outbox. */
export interface EmailSender {
  send(email: Email): Promise<void>;
}

/** The SES client, made on the first send. */
const ses = onFirstUse(async () => {
  const sdk = await import('@aws-sdk/client-sesv2');
  return { sdk, client: traced(new sdk.SESv2Client({})) };
});

class SesEmailSender implements EmailSender {
  async send(email: Email): Promise<void> {
    const { sdk, client } = await ses();
    await client.send(
      new sdk.SendEmailCommand({
        FromEmailAddress: config.OTP_SENDER_EMAIL,
        Destination: { ToAddresses: [email.to] },
        Content: { Simple: { Subject: { Data: email.subject }, Body: { Text: { Data: email.text } } } },
      }),
    );
  }
}

class LocalEmailSender implements EmailSender {
  async send(email: Email): Promise<void> {
    addToLocalOutbox({ id: randomUUID(), channel: 'email', ...email, sent_at: isoNow() });
    process.stdout.write(`\n✉  e-mail to ${email.to}: ${email.subject}\n${email.text}\n\n`);
  }
}

export const emailSender: EmailSender = isLocal ? new LocalEmailSender() : new SesEmailSender();
