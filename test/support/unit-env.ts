/**
 * Vitest setup file of the `unit` project: the environment shared/config.ts validates at import, with no services
 * behind it. The endpoints name a closed local port, so a test that reaches for DynamoDB or SQS fails at once (it
 * belongs in test/integration) instead of calling AWS.
 */
Object.assign(process.env, {
  APP_ENV: 'local',
  TABLE_NAME: 'payments-unit',
  // one value per purpose (shared/secret-purposes.ts): a read under the wrong purpose gives another HMAC
  OTP_SECRET: 'unit-test-otp-secret-not-for-production-0123456789',
  LINK_SECRET: 'unit-test-link-secret-not-for-production-0123456789',
  FINGERPRINT_SECRET: 'unit-test-fingerprint-secret-not-for-production-0123456789',
  CREDENTIALS_SECRET: 'unit-test-credentials-secret-not-for-production-0123456789',
  WEBHOOK_SEALING_SECRET: 'unit-test-webhook-sealing-secret-not-for-production-0123456789',
  IDEMPOTENCY_SECRET: 'unit-test-idempotency-secret-not-for-production-0123456789',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
  AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:1',
  AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:1',
  POWERTOOLS_SERVICE_NAME: 'payments-api',
  POWERTOOLS_DEV: 'true',
  POWERTOOLS_METRICS_DISABLED: 'true',
  LOG_LEVEL: 'WARN',
});
