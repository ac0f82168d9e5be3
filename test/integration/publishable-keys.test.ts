import { describe, expect, it } from 'vitest';
import { catalog, handlerFile } from '../../functions/catalog.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { publishableKeyOf } from '../support/payment-methods.ts';

/** Every endpoint that takes a merchant's credential but not a publishable key. */
const secretOnly = catalog.flatMap((spec) =>
  spec.trigger.type === 'http' && spec.trigger.auth === 'merchant' ? [{ spec, trigger: spec.trigger }] : [],
);

describe('a publishable key', () => {
  it('gets 401 from every endpoint but payment-method create', { timeout: 180_000 }, async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const publishable = await publishableKeyOf(apiKey);
    expect(secretOnly.length).toBeGreaterThan(50);

    for (const { spec, trigger } of secretOnly) {
      // Act
      const { handler } = (await import(/* @vite-ignore */ `../../${handlerFile(spec.name)}`)) as { handler: HttpHandler };
      const path = trigger.path.replace(/\{[^}]+\}/g, 'x');
      const res = await invokeHttp(
        handler,
        apiEvent({ method: trigger.method, path, headers: bearer(publishable), body: trigger.method === 'GET' ? undefined : {} }),
      );
      // Assess
      expect(res.status, spec.name).toBe(401);
      expect(res.body.error.message, spec.name).toBe('Invalid API key: a publishable key can only create payment methods');
    }
  });
});
