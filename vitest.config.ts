import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each test file in its own child process: handler modules (and their cold-start config) never leak between files.
    pool: 'forks',
    // Two files at once on two cores: one file alone keeps about one core busy (its handlers and DynamoDB Local answer in
    // turn). Vitest's default leaves one core idle (cores - 1).
    maxWorkers: 2,
    // Handlers print OTP e-mails and logs; show them only for failing tests.
    silent: 'passed-only',
    // Time limits catch hangs, they do not measure speed: each is sized for a machine three times slower than a loaded
    // 2-core one (docs/testing.md). A test that must finish faster says so in its own assertion.
    testTimeout: 60_000,
    // The runtime's own tests start `npm start` (a JVM among other things) in a hook.
    hookTimeout: 360_000,
    teardownTimeout: 90_000,
    // `vitest run` runs all three; `npm run test:unit` (`--project unit`) runs the pure tests without starting anything.
    // The card scan reads what every integration file left behind, so it runs in a later group (`groupOrder`), while
    // the local services still run (their teardown comes at the very end). Not group 0: with one worker, vitest runs
    // the files of group 0 last of all. A teardown that throws fails the run too, but only after a green summary.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          sequence: { groupOrder: 1 },
          include: ['test/unit/**/*.test.ts'],
          // Pure tests: no DynamoDB Local, no SQS; only the environment shared/config.ts checks at import.
          setupFiles: ['test/support/unit-env.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/**', 'test/card-scan/**'],
          // DynamoDB Local + local SQS, started once per run; env handed to every worker before handlers are imported.
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/env.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'card-scan',
          sequence: { groupOrder: 2 },
          include: ['test/card-scan/**/*.test.ts'],
        },
      },
    ],
  },
});
