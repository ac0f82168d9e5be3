/**
 * `private/pay-invoice` → `PRIVATE_PAY_INVOICE_FUNCTION`: the variable naming a private function's Lambda, which CDK
 * sets on its callers only (shared/invoke.ts reads it). No imports: CDK reads this too.
 */
export const functionVariableOf = (name: string): string => `${name.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}_FUNCTION`;
