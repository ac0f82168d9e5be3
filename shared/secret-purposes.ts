/**
 * The service's secrets, one per purpose: a function is given (in AWS: granted, and told the ARN of) only the secrets
 * its catalog entry names (functions/catalog.ts `secrets`), so a page that only shows an invoice cannot open a
 * provider's credentials. Locally `<variable>` holds the value; in AWS `<variable>_ARN` names the Secrets Manager
 * secret (shared/secrets.ts reads either). No imports: CDK and the catalog read this list too.
 */
export const SECRETS = {
  /** HMAC key of one-time sign-in codes (the stored hash of a code) */
  otp: { variable: 'OTP_SECRET', description: 'HMAC key of one-time sign-in codes' },
  /** HMAC key of signed links: invoice PDF links, payment links, 3-D Secure hand-offs */
  links: { variable: 'LINK_SECRET', description: 'HMAC key of signed links (invoice PDFs, payment links, 3-D Secure hand-offs)' },
  /** HMAC key of card fingerprints (a payment's card, a saved card) */
  fingerprints: { variable: 'FINGERPRINT_SECRET', description: 'HMAC key of card fingerprints' },
  /** key that seals connector accounts' provider credentials in the table (shared/sealing.ts) */
  credentials: { variable: 'CREDENTIALS_SECRET', description: "Key sealing connector accounts' provider credentials" },
  /** key that seals webhook endpoints' signing secrets in the table (shared/sealing.ts) */
  webhooks: { variable: 'WEBHOOK_SEALING_SECRET', description: "Key sealing webhook endpoints' signing secrets" },
  /** HMAC key of the request hash an idempotency key stores (shared/http/idempotency.ts) */
  idempotency: { variable: 'IDEMPOTENCY_SECRET', description: 'HMAC key of idempotency request hashes' },
} as const;

export type SecretPurpose = keyof typeof SECRETS;
export type SecretVariable = (typeof SECRETS)[SecretPurpose]['variable'];
export const SECRET_PURPOSES = Object.keys(SECRETS) as SecretPurpose[];

/** `OTP_SECRET_ARN`: the variable naming a purpose's Secrets Manager secret in AWS. */
export const arnVariableOf = (purpose: SecretPurpose): `${SecretVariable}_ARN` => `${SECRETS[purpose].variable}_ARN`;
