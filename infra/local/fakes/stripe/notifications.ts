import { createHmac } from 'node:crypto';
import type { FakeNotification, FakeNotifications } from '../types.ts';
import { fixture, newId, type StripeObject } from './objects.ts';

/** How long one delivery may take before it counts as failed (Stripe's own limit is longer). */
const DELIVERY_TIMEOUT_MS = 10_000;

interface Made extends FakeNotification {
  secret: string;
  delivered: boolean;
  /** the delivery under way, if any */
  sending?: Promise<void>;
  /** cancels a delivery waiting for the notification delay */
  cancelWait?: () => void;
}

/** `Stripe-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed with the whole whsec_… secret>`. */
export function stripeSignature(body: string, secret: string, at = Math.floor(Date.now() / 1000)): string {
  return `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`;
}

/**
 * Stripe's webhook endpoint and delivery queue: every event becomes one signed POST of the Event object (shaped
 * from Stripe's fixture), signed afresh on each delivery as Stripe does. Events are made only while an endpoint is
 * registered (like an account with a webhook endpoint configured).
 */
export class StripeNotifier implements FakeNotifications {
  private endpoint: { url: string; secret: string } | undefined;
  private held = false;
  private readonly made: Made[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  /** the Stripe-Version our SDK pins, as the account's API version for its events */
  apiVersion: string | null = null;

  constructor(
    private readonly defaultSecret: string,
    private readonly delayMs: number,
  ) {}

  register(url: string, secret = this.defaultSecret): void {
    this.endpoint = { url, secret };
  }

  hold(on: boolean): void {
    this.held = on;
  }

  all(): FakeNotification[] {
    return this.made.map(({ eventId, type, url, headers, body, status }) => ({ eventId, type, url, headers: { ...headers }, body, status }));
  }

  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  async flush(): Promise<void> {
    for (const notification of this.made) {
      if (notification.sending) await notification.sending;
      if (notification.delivered) continue;
      notification.cancelWait?.();
      await this.deliver(notification);
    }
  }

  /** The event `type` about `object`, to the registered endpoint (after the delay, unless held). */
  emit(type: string, object: StripeObject, livemode: boolean): void {
    if (!this.endpoint) return;
    const event = fixture('event', {
      id: newId('evt'),
      api_version: this.apiVersion,
      created: Math.floor(Date.now() / 1000),
      data: { object: structuredClone(object) },
      livemode,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    });
    const body = JSON.stringify(event, null, 2);
    const { url, secret } = this.endpoint;
    const notification: Made = { eventId: String(event.id), type, url, headers: this.headersFor(body, secret), body, secret, delivered: false };
    this.made.push(notification);
    if (!this.held) this.track(this.delayMs > 0 ? this.afterDelay(notification) : this.deliver(notification));
  }

  /** Stops every delivery still waiting for its delay (the fake is closing). */
  stop(): void {
    for (const notification of this.made) notification.cancelWait?.();
  }

  private headersFor(body: string, secret: string): Record<string, string> {
    return {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      'stripe-signature': stripeSignature(body, secret),
    };
  }

  private afterDelay(notification: Made): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        notification.cancelWait = undefined;
        void this.deliver(notification).then(resolve);
      }, this.delayMs);
      notification.cancelWait = () => {
        clearTimeout(timer);
        notification.cancelWait = undefined;
        resolve();
      };
    });
  }

  private deliver(notification: Made): Promise<void> {
    notification.headers = this.headersFor(notification.body, notification.secret);
    notification.sending = fetch(notification.url, {
      method: 'POST',
      headers: notification.headers,
      body: notification.body,
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    })
      .then(async (response) => {
        await response.arrayBuffer();
        notification.status = response.status;
        notification.delivered = response.ok;
      })
      .catch(() => {
        notification.status = undefined;
      })
      .finally(() => {
        notification.sending = undefined;
      });
    return notification.sending;
  }

  private track(delivery: Promise<void>): void {
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }
}
