import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each test file in its own child process: handler modules (and their cold-start config) never leak between files.
    pool: 'forks',
    // Handlers print OTP e-mails and logs; show them only for failing tests.
    silent: 'passed-only',
    testTimeout: 20_000,
    // The e2e test starts `npm start` (a JVM among other things) in a hook.
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // `vitest run` runs both; `npm run test:unit` (`--project unit`) runs the pure tests without starting anything.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Pure tests: no DynamoDB Local, no SQS; only the environment shared/config.ts checks at import.
          setupFiles: ['test/support/unit-env.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/**'],
          // DynamoDB Local + local SQS, started once per run; env handed to every worker before handlers are imported.
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/env.ts'],
        },
      },
    ],
  },
});
