/**
 * The Adyen fake's notification sender: standard notifications (Webhooks v1 `NotificationRequest`, one item each,
 * `live: "false"`), each item signed the way Adyen signs it (HMAC-SHA256 with the hex key over
 * `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`, base64, in
 * `additionalData.hmacSignature`), and checked against the contract's schema of its event code before it is kept.
 */
import { createHmac } from 'node:crypto';
import type { FakeNotification, FakeNotifications } from '../types.ts';
import { notificationProblem } from './other-contracts.ts';

/** The HMAC key the fake signs with unless one is registered: the one its test credentials carry. */
export const ADYEN_FAKE_HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

export interface NotificationItem {
  eventCode: string;
  pspReference: string;
  originalReference?: string;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  success: 'true' | 'false';
  reason?: string;
  paymentMethod?: string;
  additionalData?: Record<string, string>;
}

export function hmacSignature(item: NotificationItem, hexKey: string): string {
  const signed = [
    item.pspReference,
    item.originalReference ?? '',
    item.merchantAccountCode,
    item.merchantReference,
    item.amount.value,
    item.amount.currency,
    item.eventCode,
    item.success,
  ].join(':');
  return createHmac('sha256', Buffer.from(hexKey, 'hex')).update(signed, 'utf8').digest('base64');
}

/** Adyen's `eventDate`: ISO 8601 with a zone offset, to the second. */
const eventDate = (at: Date) => `${at.toISOString().slice(0, 19)}+00:00`;

interface Kept extends FakeNotification {
  delivered: boolean;
}

export class AdyenNotifications implements FakeNotifications {
  private endpoint: { url: string; secret: string } | undefined;
  private held = false;
  private readonly kept: Kept[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly delayMs: number,
    private readonly contractViolations: string[],
  ) {}

  register(url: string, secret = ADYEN_FAKE_HMAC_KEY): void {
    this.endpoint = { url, secret };
  }

  hold(on: boolean): void {
    this.held = on;
  }

  async flush(): Promise<void> {
    await this.idle();
    for (const notification of this.kept.filter((n) => !n.delivered)) await this.deliver(notification);
  }

  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  all(): FakeNotification[] {
    return this.kept.map(({ delivered: _, ...notification }) => ({ ...notification }));
  }

  /** Makes the notification of a change, signed for the registered endpoint (none registered: nothing is made). */
  send(item: NotificationItem): void {
    if (!this.endpoint) return;
    const signed = { ...item, eventDate: eventDate(new Date()) };
    signed.additionalData = { ...item.additionalData, hmacSignature: hmacSignature(item, this.endpoint.secret) };
    const body = { live: 'false', notificationItems: [{ NotificationRequestItem: signed }] };
    const problem = notificationProblem(item.eventCode, body);
    if (problem) this.contractViolations.push(`notification ${item.eventCode}: ${problem}`);
    const notification: Kept = {
      eventId: `${item.eventCode}:${item.pspReference}:${item.success}`,
      type: item.eventCode,
      url: this.endpoint.url,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      delivered: false,
    };
    this.kept.push(notification);
    if (this.held) return;
    const sent = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.deliver(notification).then(resolve);
      }, this.delayMs);
      this.timers.add(timer);
    });
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  /** Stops the delayed sends (the fake is closing). */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.inFlight.clear();
  }

  private async deliver(notification: Kept): Promise<void> {
    try {
      const response = await fetch(notification.url, { method: 'POST', headers: notification.headers, body: notification.body });
      await response.text();
      notification.status = response.status;
      notification.delivered = response.ok;
    } catch {
      notification.status = undefined;
    }
  }
}
