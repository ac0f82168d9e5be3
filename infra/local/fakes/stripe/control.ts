import type { ServerResponse } from 'node:http';
import { FakeControlError } from './answers.ts';
import { type PayoutFaults, payoutFaultsOf } from '../payout-faults.ts';

/** What the `/_fake/*` endpoints drive: the fake's own methods. */
export interface Controls {
  register(url: string, secret?: string): void;
  openDispute(paymentReference: string, reason?: string): string;
  closeDispute(disputeId: string, outcome: 'won' | 'lost'): void;
  failRefund(refundReference: string): void;
  updateCard(paymentMethodId: string, update: { exp_month: number; exp_year: number; number?: string }): unknown;
  payOut(faults: PayoutFaults, secretKey?: string): Array<{ id: string; amount: number; currency: string }>;
}

/** The faults of a payout control call: `drop_line` true, the deltas integers. */
function payoutFaults(body: Record<string, unknown>): PayoutFaults {
  const read = payoutFaultsOf(body);
  if ('problem' in read) throw new FakeControlError(read.problem);
  return read.faults;
}

const field = (body: Record<string, unknown>, name: string): string | undefined => (typeof body[name] === 'string' ? body[name] : undefined);

function required(body: Record<string, unknown>, name: string): string {
  const value = field(body, name);
  if (!value) throw new FakeControlError(`${name} is required`);
  return value;
}

/**
 * The fake's control endpoints (JSON in and out), how `npm start` users and the service's test helpers play the
 * card network: `POST /_fake/webhooks {url, secret?}`, `POST /_fake/disputes {reference, reason?}` → `{id}`,
 * `POST /_fake/disputes/:id/close {outcome}`, `POST /_fake/refunds/:id/fail`, `POST /_fake/payouts {secret_key?,
 * drop_line?, line_amount_delta?, fee_delta?, total_delta?}` → `{data: [{id, amount, currency}]}`, and the card
 * updater: `POST /_fake/payment_methods/:id/update {exp_month, exp_year, number?}` → the PaymentMethod.
 */
export function control(controls: Controls, method: string, path: string, rawBody: string, res: ServerResponse): void {
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  try {
    const parsed: unknown = rawBody ? JSON.parse(rawBody) : {};
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new FakeControlError('the body must be a JSON object');
    const body = parsed as Record<string, unknown>;
    const closing = /^\/_fake\/disputes\/([^/]+)\/close$/.exec(path);
    const failing = /^\/_fake\/refunds\/([^/]+)\/fail$/.exec(path);
    const updating = /^\/_fake\/payment_methods\/([^/]+)\/update$/.exec(path);
    if (method !== 'POST') throw new FakeControlError(`${method} ${path} is not a control endpoint`, 404);
    if (path === '/_fake/webhooks') {
      const url = required(body, 'url');
      controls.register(url, field(body, 'secret'));
      return reply(200, { url });
    }
    if (path === '/_fake/disputes') return reply(200, { id: controls.openDispute(required(body, 'reference'), field(body, 'reason')) });
    if (closing) {
      const outcome = required(body, 'outcome');
      if (outcome !== 'won' && outcome !== 'lost') throw new FakeControlError('outcome must be won or lost');
      controls.closeDispute(closing[1]!, outcome);
      return reply(200, { id: closing[1], status: outcome });
    }
    if (updating) {
      const [exp_month, exp_year] = [Number(body.exp_month), Number(body.exp_year)];
      if (!Number.isInteger(exp_month) || !Number.isInteger(exp_year)) throw new FakeControlError('exp_month and exp_year are required numbers');
      return reply(
        200,
        controls.updateCard(updating[1]!, { exp_month, exp_year, ...(field(body, 'number') ? { number: field(body, 'number') } : {}) }),
      );
    }
    if (path === '/_fake/payouts') return reply(200, { data: controls.payOut(payoutFaults(body), field(body, 'secret_key')) });
    if (failing) {
      controls.failRefund(failing[1]!);
      return reply(200, { id: failing[1], status: 'failed' });
    }
    throw new FakeControlError(`${method} ${path} is not a control endpoint`, 404);
  } catch (error) {
    if (error instanceof FakeControlError) return reply(error.status, { error: { message: error.message } });
    if (error instanceof SyntaxError) return reply(400, { error: { message: 'the body must be JSON' } });
    throw error;
  }
}
