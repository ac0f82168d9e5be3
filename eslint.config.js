import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const THIN_HANDLERS = {
  group: ['**/shared/store/**', '**/shared/providers/**', '@aws-sdk/*'],
  message: 'a handler calls shared/http and shared/domain; the domain reaches the store and providers',
};
const NO_HANDLERS = { group: ['**/functions/**'], message: 'shared code never depends on a handler or the catalog' };
const NO_AWS_IN_DOMAIN = { group: ['@aws-sdk/*'], message: 'domain code describes changes; shared/store turns them into DynamoDB calls' };
const NO_SCHEMAS_IN_STORE = {
  group: ['**/schemas/**'],
  message: 'the store keeps domain records; request schemas belong to shared/http and shared/domain',
};

/** A files block that forbids the import patterns of `boundaries`, each saying why. */
const boundary = (files, boundaries) => ({ files: [files], rules: { 'no-restricted-imports': ['error', { patterns: boundaries }] } });

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', '.data/', 'bench/out/', 'dist/', 'client/dist/', 'client/src/api.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  { files: ['infra/local/**', 'test/**', 'client/examples/**'], rules: { 'no-console': 'off' } },
  // Import boundaries (docs/architecture.md "Project layout"): handlers stay thin, domain code never talks to AWS,
  // the store knows nothing of request schemas, and nothing shared depends on a handler. A later block replaces an
  // earlier one's rule for the same file, so each block lists every boundary of its files.
  boundary('functions/**', [THIN_HANDLERS]),
  boundary('shared/**', [NO_HANDLERS]),
  boundary('shared/domain/**', [NO_HANDLERS, NO_AWS_IN_DOMAIN]),
  boundary('shared/store/**', [NO_HANDLERS, NO_SCHEMAS_IN_STORE]),
);
