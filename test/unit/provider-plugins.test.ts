import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundle.ts';
import { followUpModule, payoutsModule, PROVIDERS, providerModule } from '../../shared/providers/index.ts';

/** The files every provider plugin has, each for the same thing (docs/architecture.md "Project layout"). */
const PLUGIN_FILES = [
  'index.ts',
  'credentials.ts',
  'client.ts',
  'connector.ts',
  'errors.ts',
  'amounts.ts',
  'authorization.ts',
  'changes.ts',
  'webhooks.ts',
  'disputes.ts',
  'follow-up.ts',
  'payouts.ts',
];
/** The files every provider fake has. */
const FAKE_FILES = ['server.ts', 'notifications.ts', 'payouts.ts'];

const filesOf = (folder: string) => readdirSync(join(PROJECT_ROOT, folder));

describe('provider plugins', () => {
  it.each(PROVIDERS)('%s has every plugin file, each thing under the one name it has in every folder', (provider) => {
    const files = filesOf(`shared/providers/${provider}`);
    expect(PLUGIN_FILES.filter((file) => !files.includes(file))).toEqual([]);
    // The names this layout retired: the same concept is under one name now.
    expect(
      files.filter((file) => ['three-ds.ts', 'notification-changes.ts', 'reads.ts', 'dispute-words.ts', 'intents.ts', 'payments.ts'].includes(file)),
    ).toEqual([]);
  });

  it.each(PROVIDERS)('%s: the registry loads its connection, follow-up and payouts parts', async (provider) => {
    const connection = await providerModule(provider);
    expect(connection.provider).toBe(provider);
    expect(typeof connection.connect).toBe('function');
    expect(typeof (await followUpModule(provider)).parseWebhook).toBe('function');
    expect(typeof (await payoutsModule(provider)).payoutsSince).toBe('function');
  });

  it('the provider code casts no module through unknown', () => {
    expect(grep(/as unknown as Provider/, ['shared'])).toEqual([]);
  });
});

describe('provider fakes', () => {
  it.each(PROVIDERS)('the %s fake is in infra/local/fakes with the files every fake has', (provider) => {
    expect(FAKE_FILES.filter((file) => !existsSync(join(PROJECT_ROOT, 'infra/local/fakes', provider, file)))).toEqual([]);
  });

  it('nothing outside test/ imports a file of test/ (the local runtime runs the fakes)', () => {
    expect(grep(/(from |import\()'(\.\.\/)+test\//, ['infra', 'shared', 'functions'])).toEqual([]);
  });
});

/** The lines of the TypeScript files under `folders` that match `pattern`, as `file: line` (none: []). */
function grep(pattern: RegExp, folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        readFileSync(join(PROJECT_ROOT, folder, file), 'utf8')
          .split('\n')
          .filter((line) => pattern.test(line))
          .map((line) => `${folder}/${file}: ${line.trim()}`),
      ),
  );
}
