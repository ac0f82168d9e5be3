/** Messages "sent" while running locally, kept in memory and listed by `GET /_local/outbox`. */
export interface OutboxMessage {
  id: string;
  channel: 'email' | 'sms' | 'whatsapp';
  to: string;
  subject?: string;
  text: string;
  sent_at: string;
}

const messages: OutboxMessage[] = [];

export const addToLocalOutbox = (message: OutboxMessage): void => void messages.push(message);

/** Newest first. */
export const listLocalOutbox = (): OutboxMessage[] => [...messages].reverse();
