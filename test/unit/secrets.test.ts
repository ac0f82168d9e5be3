import { createServer } from 'node:http';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { secretReader } from '../../shared/secrets.ts';
import { listen } from '../../infra/local/fakes/listen.ts';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:app-AbCdEf';

/** Secrets Manager as the SDK speaks to it (JSON 1.1, `X-Amz-Target`), holding one secret the test changes. */
function fakeSecretsManager() {
  const state = { value: 'first-value', reads: 0 };
  const server = createServer((req, res) => {
    req.resume().on('end', () => {
      state.reads += req.headers['x-amz-target'] === 'secretsmanager.GetSecretValue' ? 1 : 0;
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ ARN, Name: 'app', SecretString: state.value, VersionId: `v${state.reads}` }));
    });
  });
  return { state, server };
}

describe('a secret read from Secrets Manager', () => {
  const { state, server } = fakeSecretsManager();
  let provider: SecretsProvider;
  let endpoint: string;
  beforeAll(async () => {
    endpoint = `http://127.0.0.1:${await listen(server)}`;
    provider = new SecretsProvider({
      clientConfig: { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } },
    });
  });
  afterEach(() => vi.useRealTimers());
  afterAll(() => server.close());

  it('is kept for its cache age, then read again: a changed value reaches every container within that time', async () => {
    // Prepare
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-24T10:00:00Z') });
    const read = secretReader(ARN, 300, async () => provider);
    state.value = 'first-value';
    const readsBefore = state.reads;
    // Act + Assess: read once, then served from the cache while the value changes underneath
    expect(await read()).toBe('first-value');
    state.value = 'second-value';
    vi.setSystemTime(new Date('2026-11-24T10:04:59Z'));
    expect(await read()).toBe('first-value');
    expect(state.reads - readsBefore).toBe(1);
    // once the cache age has passed, the new value
    vi.setSystemTime(new Date('2026-11-24T10:05:01Z'));
    expect(await read()).toBe('second-value');
    expect(state.reads - readsBefore).toBe(2);
  });

  it('loads its Secrets Manager client on the first read, from the environment the function runs in', async () => {
    // Prepare: the SDK's own settings, as Lambda would give them, pointed at the fake
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', endpoint);
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    state.value = 'loaded-on-first-read';
    const readsBefore = state.reads;
    try {
      // Act
      const value = await secretReader(`${ARN}-default`, 300)();
      // Assess
      expect(value).toBe('loaded-on-first-read');
      expect(state.reads - readsBefore).toBe(1);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses an empty secret', async () => {
    state.value = '';
    await expect(secretReader(`${ARN}-empty`, 300, async () => provider)()).rejects.toThrow('Secret is empty');
  });
});
