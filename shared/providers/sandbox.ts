import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthorizeRequest, AuthorizeResult, Connector, OperationResult, ProviderName } from './types.ts';

/**
 * Stripe's public test cards and what the sandbox answers for them. Any other Luhn-valid number is approved.
 * `first_attempt_processing_error` fails only at the first provider tried, so routing fails over.
 */
export const TEST_CARDS: Readonly<
  Record<string, { decline: string } | { soft: 'first_attempt_processing_error' } | { laterChargesDecline: true }>
> = {
  '4000000000000002': { decline: 'generic_decline' },
  '4000000000009995': { decline: 'insufficient_funds' },
  '4000000000009987': { decline: 'lost_card' },
  '4000000000009979': { decline: 'stolen_card' },
  '4000000000000069': { decline: 'expired_card' },
  '4000000000000127': { decline: 'incorrect_cvc' },
  '4100000000000019': { decline: 'fraudulent' },
  '4000000000000119': { soft: 'first_attempt_processing_error' },
  // Stripe's "attaches, but charges fail": the first payment succeeds, charges on its card-on-file token decline.
  '4000000000000341': { laterChargesDecline: true },
};

const DECLINING_TOKEN = '_declines_';

/** A card every sandbox provider approves (Stripe's 4242… test card), for demos and fixtures. */
export const SANDBOX_APPROVED_CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' } as const;

/**
 * How the sandbox providers behave, read from the environment at cold start and changeable at run time (tests):
 * `SANDBOX_LATENCY_MS=stripe=120,adyen=80` adds latency, `SANDBOX_DOWN=adyen` makes a provider unreachable.
 */
export const sandboxSettings = {
  latencyMs: parsePairs(process.env.SANDBOX_LATENCY_MS),
  down: new Set((process.env.SANDBOX_DOWN ?? '').split(',').map((s) => s.trim()).filter(Boolean)) as Set<string>,
};

function parsePairs(value: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pair of (value ?? '').split(',')) {
    const [name, ms] = pair.split('=').map((s) => s.trim());
    if (name && ms && Number.isFinite(Number(ms))) out[name] = Number(ms);
  }
  return out;
}

/** Waits `ms`; rejects at once when `signal` aborts (the caller's deadline passed). */
const pause = (ms: number, signal?: AbortSignal) => (ms > 0 ? sleep(ms, undefined, { signal }) : Promise.resolve());

export class SandboxConnector implements Connector {
  constructor(readonly name: ProviderName) {}

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const started = performance.now();
    const unreachable = await this.roundTrip(request.signal);
    // Rounded up: timers may fire a fraction of a millisecond early.
    const latencyMs = () => Math.ceil(performance.now() - started);
    if (unreachable) return { outcome: 'soft_failure', reason: 'provider_down', latencyMs: latencyMs() };
    if (request.providerToken?.includes(DECLINING_TOKEN)) return { outcome: 'declined', declineCode: 'generic_decline', latencyMs: latencyMs() };
    const behaviour = request.card ? TEST_CARDS[request.card.number] : undefined;
    if (behaviour && 'decline' in behaviour) return { outcome: 'declined', declineCode: behaviour.decline, latencyMs: latencyMs() };
    if (behaviour && 'soft' in behaviour && request.attempt === 1) return { outcome: 'soft_failure', reason: 'processing_error', latencyMs: latencyMs() };
    const marker = behaviour && 'laterChargesDecline' in behaviour ? DECLINING_TOKEN : '_';
    return {
      outcome: 'approved',
      reference: `${this.name}_ch_${randomBytes(12).toString('hex')}`,
      // A reusable card-on-file token, as a provider's vault issues it (no card data in it).
      providerToken: request.providerToken ?? `tok_${this.name}${marker}${randomBytes(12).toString('hex')}`,
      latencyMs: latencyMs(),
    };
  }

  capture(reference: string, _amount: number, _currency: string): Promise<OperationResult> {
    return this.operation(reference);
  }

  void(reference: string): Promise<OperationResult> {
    return this.operation(reference);
  }

  refund(reference: string, _amount: number, _currency: string): Promise<OperationResult> {
    return this.operation(`${reference}_re_${randomBytes(6).toString('hex')}`);
  }

  private async operation(reference: string): Promise<OperationResult> {
    return (await this.roundTrip()) ? { ok: false, reason: 'provider_down' } : { ok: true, reference };
  }

  /** Waits the configured latency; true when the provider is down. */
  private async roundTrip(signal?: AbortSignal): Promise<boolean> {
    await pause(sandboxSettings.latencyMs[this.name] ?? 0, signal);
    return sandboxSettings.down.has(this.name);
  }
}
