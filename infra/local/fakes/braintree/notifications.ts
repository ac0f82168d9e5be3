/**
 * The fake's webhook sender (Braintree's Control Panel webhook setting plus its delivery queue): every notification
 * is signed with the API keys of the merchant it concerns and POSTed form-encoded to the registered URL, `delayMs`
 * after the change unless held. A delivery answered non-2xx (or not at all) is kept for `flush`.
 */
import { createHash } from 'node:crypto';
import type { FakeNotification, FakeNotifications } from '../types.ts';
import { notificationXml, signedPayload } from './notification-xml.ts';

export interface Signer {
  publicKey: string;
  privateKey: string;
}

export class BraintreeNotifications implements FakeNotifications {
  private url: string | undefined;
  private held = false;
  private readonly made: FakeNotification[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly delayMs = 0) {}

  /** Braintree signs with the merchant's API keys: `secret` is not used. */
  register(url: string): void {
    this.url = url;
  }

  hold(on: boolean): void {
    this.held = on;
  }

  all(): FakeNotification[] {
    return [...this.made];
  }

  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  async flush(): Promise<void> {
    await this.idle();
    for (const notification of this.made.filter((n) => !delivered(n))) await this.deliver(notification);
  }

  /** A change happened: its notification is made (when an endpoint is registered) and sent unless held. */
  notify(signer: Signer, kind: string, subjectXml: string): void {
    if (!this.url) return;
    const fields = signedPayload(notificationXml(kind, subjectXml, new Date()), signer.publicKey, signer.privateKey);
    const notification: FakeNotification = {
      eventId: createHash('sha256').update(fields.bt_payload).digest('hex'),
      type: kind,
      url: this.url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Braintree Webhooks (fake)' },
      body: new URLSearchParams(fields).toString(),
    };
    this.made.push(notification);
    this.track(
      (async () => {
        if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
        if (!this.held) await this.deliver(notification);
      })(),
    );
  }

  private track(sending: Promise<void>): void {
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
  }

  private async deliver(notification: FakeNotification): Promise<void> {
    try {
      const response = await fetch(notification.url, { method: 'POST', headers: notification.headers, body: notification.body });
      await response.arrayBuffer();
      notification.status = response.status;
    } catch {
      // not answered: kept for flush, its last status unchanged
    }
  }
}

const delivered = (n: FakeNotification) => n.status !== undefined && n.status >= 200 && n.status < 300;
