import { randomUUID } from 'node:crypto';
import { type Config, config, isLocal } from '../config.ts';
import { isoNow } from '../model/clock.ts';
import { AppError, messageFor } from '../model/errors.ts';
import { addToLocalOutbox } from './local-outbox.ts';
import { onFirstUse } from '../first-use.ts';
import { traced } from '../tracer.ts';

/**
 * The messaging port for phone channels (e-mail has its own port, `email.ts`):
 * - cloud: SMS through AWS End User Messaging SMS (`SendTextMessage`), WhatsApp through AWS End User Messaging Social
 *   (`SendWhatsAppMessage`, a pre-approved template, as WhatsApp requires for business-initiated messages);
 * - locally: the console and the local outbox (`GET /_local/outbox`).
 */
export type MessageChannel = 'sms' | 'whatsapp';

export interface TextMessage {
  channel: MessageChannel;
  /** E.164 phone number */
  to: string;
  /** the full text (SMS, local outbox) */
  text: string;
  /** the text's variable parts, in order, for channels that send a pre-approved template (WhatsApp) */
  params: string[];
}

export interface MessageSender {
  send(message: TextMessage): Promise<void>;
}

/**
 * The channel exists in the API but this deployment has no sender for it: the merchant can choose another channel.
 * A bad value of a field like any other (`parameter_invalid`, docs/api.md "Answers and errors").
 */
export class ChannelNotConfigured extends AppError {
  constructor() {
    super(400, 'invalid_request_error', 'parameter_invalid', messageFor(400, 'channel is not available in this deployment: choose another channel'), {
      param: 'channel',
    });
  }
}

/** The messaging settings of `shared/config.ts`. */
export type MessagingSettings = Pick<
  Config,
  | 'SMS_ORIGINATION_IDENTITY'
  | 'SMS_CONFIGURATION_SET'
  | 'WHATSAPP_PHONE_NUMBER_ID'
  | 'WHATSAPP_TEMPLATE_NAME'
  | 'WHATSAPP_TEMPLATE_LANGUAGE'
  | 'WHATSAPP_META_API_VERSION'
>;

class LocalMessageSender implements MessageSender {
  async send(message: TextMessage): Promise<void> {
    addToLocalOutbox({ id: randomUUID(), channel: message.channel, to: message.to, text: message.text, sent_at: isoNow() });
    process.stdout.write(`\n💬 ${message.channel} to ${message.to}:\n${message.text}\n\n`);
  }
}

/** The End User Messaging clients, each made on its channel's first send. */
const sms = onFirstUse(async () => {
  const sdk = await import('@aws-sdk/client-pinpoint-sms-voice-v2');
  return { sdk, client: traced(new sdk.PinpointSMSVoiceV2Client({})) };
});
const whatsApp = onFirstUse(async () => {
  const sdk = await import('@aws-sdk/client-socialmessaging');
  return { sdk, client: traced(new sdk.SocialMessagingClient({})) };
});

/** AWS End User Messaging SMS (pinpoint-sms-voice-v2). IAM: `sms-voice:SendTextMessage`. */
export class EndUserMessagingSmsSender implements MessageSender {
  constructor(private readonly settings: Pick<MessagingSettings, 'SMS_ORIGINATION_IDENTITY' | 'SMS_CONFIGURATION_SET'>) {}
  async send(message: TextMessage): Promise<void> {
    const { sdk, client } = await sms();
    await client.send(
      new sdk.SendTextMessageCommand({
        DestinationPhoneNumber: message.to,
        OriginationIdentity: this.settings.SMS_ORIGINATION_IDENTITY,
        ConfigurationSetName: this.settings.SMS_CONFIGURATION_SET,
        MessageBody: message.text,
        MessageType: 'TRANSACTIONAL',
      }),
    );
  }
}

/**
 * WhatsApp through AWS End User Messaging Social. WhatsApp only lets a business start a conversation with an
 * approved template, so the message goes out as the configured template with `params` as its body parameters.
 * IAM: `social-messaging:SendWhatsAppMessage` on the phone number.
 */
export class EndUserMessagingWhatsAppSender implements MessageSender {
  constructor(
    private readonly settings: Required<
      Pick<MessagingSettings, 'WHATSAPP_PHONE_NUMBER_ID' | 'WHATSAPP_TEMPLATE_NAME' | 'WHATSAPP_TEMPLATE_LANGUAGE' | 'WHATSAPP_META_API_VERSION'>
    >,
  ) {}
  async send(message: TextMessage): Promise<void> {
    const { sdk, client } = await whatsApp();
    const payload = {
      messaging_product: 'whatsapp',
      to: message.to,
      type: 'template',
      template: {
        name: this.settings.WHATSAPP_TEMPLATE_NAME,
        language: { code: this.settings.WHATSAPP_TEMPLATE_LANGUAGE },
        components: [{ type: 'body', parameters: message.params.map((text) => ({ type: 'text', text })) }],
      },
    };
    await client.send(
      new sdk.SendWhatsAppMessageCommand({
        originationPhoneNumberId: this.settings.WHATSAPP_PHONE_NUMBER_ID,
        metaApiVersion: this.settings.WHATSAPP_META_API_VERSION,
        message: new TextEncoder().encode(JSON.stringify(payload)),
      }),
    );
  }
}

/** The sender of a channel this deployment has not set up: every send is a typed 400 naming `channel`. */
export class NotConfiguredSender implements MessageSender {
  async send(): Promise<void> {
    throw new ChannelNotConfigured();
  }
}

/** Sends each message through its channel's sender. */
export class ChannelRouter implements MessageSender {
  constructor(private readonly senders: Record<MessageChannel, MessageSender>) {}
  send(message: TextMessage): Promise<void> {
    return this.senders[message.channel].send(message);
  }
}

export function cloudMessageSender(settings: MessagingSettings): MessageSender {
  const { WHATSAPP_PHONE_NUMBER_ID } = settings;
  return new ChannelRouter({
    sms: new EndUserMessagingSmsSender(settings),
    whatsapp: WHATSAPP_PHONE_NUMBER_ID ? new EndUserMessagingWhatsAppSender({ ...settings, WHATSAPP_PHONE_NUMBER_ID }) : new NotConfiguredSender(),
  });
}

export const messageSender: MessageSender = isLocal ? new LocalMessageSender() : cloudMessageSender(config);
