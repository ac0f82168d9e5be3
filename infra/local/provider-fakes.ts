/**
 * The provider fakes `npm start` runs (infra/local/fakes/, docs/providers.md "Local provider fakes"), so a merchant can pay
 * through the real connectors without a network. `STRIPE_FAKE_PORT` (and Adyen's, Braintree's) moves a fake, 0 to any
 * free port; `PROVIDER_FAKES=off` runs none; a connector base URL you set keeps that provider's fake off;
 * `FAKE_NOTIFICATION_DELAY_MS` (default 3 s) delays notifications, so a refund can be seen pending first.
 */
import type { ProviderName } from '../../shared/providers/types.ts';

export interface FakeSetting {
  provider: ProviderName;
  title: string;
  /** the connector's base-URL variable (STRIPE_API_BASE_URL, …) */
  baseUrlVar: string;
  /** the variable choosing the fake's port (STRIPE_FAKE_PORT, …) */
  portVar: string;
  port: number;
  /** the base URL the user set: kept, and no fake is started for this provider */
  userUrl?: string;
}

export interface FakeSettings {
  /** false with PROVIDER_FAKES=off */
  on: boolean;
  fakes: FakeSetting[];
  /** how long after a change a fake sends its notification */
  notificationDelayMs: number;
}

const DEFAULTS: ReadonlyArray<Pick<FakeSetting, 'provider' | 'title' | 'baseUrlVar' | 'portVar' | 'port'>> = [
  { provider: 'stripe', title: 'Stripe', baseUrlVar: 'STRIPE_API_BASE_URL', portVar: 'STRIPE_FAKE_PORT', port: 12111 },
  { provider: 'adyen', title: 'Adyen', baseUrlVar: 'ADYEN_CHECKOUT_BASE_URL', portVar: 'ADYEN_FAKE_PORT', port: 12112 },
  { provider: 'braintree', title: 'Braintree', baseUrlVar: 'BRAINTREE_GATEWAY_URL', portVar: 'BRAINTREE_FAKE_PORT', port: 12113 },
];

/** A setting that cannot be used; the runtime prints the message and exits 1. */
export class SettingError extends Error {}

/** A fake could not listen because its port is taken. */
export class FakePortInUse extends Error {
  constructor(readonly fake: FakeSetting) {
    super(`Port ${fake.port} (the ${fake.title} fake) is in use.`);
  }
}

/** PROVIDER_FAKES, the fakes' ports and the base URLs the user set, read from `env`. */
export function providerFakeSettings(env: NodeJS.ProcessEnv = process.env): FakeSettings {
  const mode = (env.PROVIDER_FAKES || 'on').toLowerCase();
  if (mode !== 'on' && mode !== 'off') throw new SettingError(`PROVIDER_FAKES must be on or off, got "${env.PROVIDER_FAKES}"`);
  return {
    on: mode === 'on',
    notificationDelayMs: delaySetting(env.FAKE_NOTIFICATION_DELAY_MS),
    fakes: DEFAULTS.map((fake) => ({
      ...fake,
      port: portSetting(fake.portVar, env[fake.portVar], fake.port),
      ...(env[fake.baseUrlVar] ? { userUrl: env[fake.baseUrlVar] } : {}),
    })),
  };
}

function delaySetting(value: string | undefined): number {
  if (value === undefined || value === '') return 3_000;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 600_000)
    throw new SettingError(`FAKE_NOTIFICATION_DELAY_MS must be milliseconds (0 to 600000), got "${value}"`);
  return n;
}

export function portSetting(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new SettingError(`${name} must be a port number, got "${value}"`);
  return n;
}

export interface RunningFakes {
  /** the base-URL variables of the fakes started, for the handlers (never one the user set) */
  env: Record<string, string>;
  /** the banner's block: each fake's URL and a curl that connects it as a test account of `apiKey` */
  banner(api: { url: string; apiKey: string }): string[];
  close(): Promise<void>;
}

/**
 * Starts the fakes `settings` ask for, together. If one cannot start, the others are closed again and the error
 * says which (FakePortInUse for a taken port).
 */
export async function runProviderFakes(settings: FakeSettings): Promise<RunningFakes> {
  const wanted = settings.on ? settings.fakes.filter((f) => !f.userUrl) : [];
  const yours = settings.fakes.filter((f) => f.userUrl).map((f) => `  ${f.title.padEnd(15)}${f.userUrl}   ${f.baseUrlVar} (yours)`);
  if (wanted.length === 0) {
    const why = settings.on ? 'every base URL is set' : 'PROVIDER_FAKES=off';
    const line = `  Provider fakes off (${why}): connectors call the providers${yours.length ? ', or these base URLs:' : ''}`;
    return { env: {}, close: async () => undefined, banner: () => [line, ...yours] };
  }

  // Loaded only when needed: the fakes bring GraphQL and Adyen's contract validators.
  const { FAKES, FAKE_CREDENTIALS } = await import('./fakes/index.ts');
  const results = await Promise.allSettled(
    wanted.map((fake) => FAKES[fake.provider].start({ port: fake.port, notificationDelayMs: settings.notificationDelayMs })),
  );
  const servers = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.findIndex((r) => r.status === 'rejected');
  if (failed >= 0) {
    await Promise.allSettled(servers.map((s) => s.close()));
    const error = (results[failed] as PromiseRejectedResult).reason as NodeJS.ErrnoException;
    if (error.code === 'EADDRINUSE') throw new FakePortInUse(wanted[failed]!);
    throw error;
  }
  const started = wanted.map((fake, i) => ({ ...fake, url: servers[i]!.url }));

  return {
    env: Object.fromEntries(started.map((f) => [f.baseUrlVar, f.url])),
    close: async () => void (await Promise.allSettled(servers.map((s) => s.close()))),
    banner: ({ url, apiKey }) => [
      '  Provider fakes (PROVIDER_FAKES=off to use the real providers)',
      ...started.map((f) => `  ${f.title.padEnd(15)}${f.url}   ${f.baseUrlVar}`),
      ...yours,
      '',
      '  Connect them as test accounts of the demo merchant (fake credentials):',
      ...started.flatMap((fake) => [
        `  curl -s ${url}/api/connectors -H "Authorization: Bearer ${apiKey}" -H 'Content-Type: application/json' \\`,
        `    -d ${shellQuoted(JSON.stringify({ provider: fake.provider, label: `${fake.title} fake`, credentials: FAKE_CREDENTIALS[fake.provider] }))}`,
      ]),
      '',
      "  Then point each fake's notifications at its connector's webhook_url (the provider dashboard's setting):",
      ...started.map((fake) => `  curl -s ${fake.url}/_fake/webhooks -H 'Content-Type: application/json' -d '{"url": "<webhook_url>"}'`),
    ],
  };
}

/** `text` in single quotes for a POSIX shell. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
