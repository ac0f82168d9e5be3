import { type CfnResource, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../functions/catalog.ts';
import { arnVariableOf, SECRET_PURPOSES, SECRETS, type SecretPurpose } from '../../shared/secret-purposes.ts';
import { defaultDeployment, mergedTemplate, type Resource, functionsOf, refersTo, type Statement } from './templates.ts';

/*
 * The app's secrets in CDK (infra/constructs/secret.ts): one Secrets Manager secret per purpose, and each function
 * granted and told exactly the ones its catalog entry names.
 */

/**
 * Who may open connector accounts' provider credentials, by name: a change to this list is a change to who can act as
 * the merchant at their provider. Every one calls a provider (or checks its signature) with them: a payment's
 * operations, the private functions that charge an invoice for its page and finish 3-D Secure for the return page,
 * disputes, reconciliation, and the connector's own create, update and provider notifications. No public page.
 */
const CREDENTIAL_READERS = [
  'connectors/create',
  'connectors/reconcile',
  'connectors/update',
  'connectors/webhooks',
  'disputes/accept',
  'disputes/evidence',
  'payments/capture',
  'payments/create',
  'payments/refund',
  'payments/void',
  'private/finish-authentication',
  'private/pay-invoice',
  'private/pay-link',
  'workers/payment-method-removal',
  'workers/reconcile-account',
  'workers/reconciler',
  'workers/renewal',
  'workers/test-clock-advance',
];
/** Who may open webhook endpoints' signing secrets: their configuration, rotation, the test send and the delivery worker. */
const WEBHOOK_SECRET_READERS = ['webhooks/configure', 'webhooks/rotate-secret', 'webhooks/test', 'workers/webhook-delivery'];

const stack = await defaultDeployment();
const resources = mergedTemplate(stack).toJSON().Resources as Record<string, Resource>;
const idOf = (purpose: SecretPurpose) => Stack.of(stack).getLogicalId(stack.secrets[purpose].node.defaultChild as CfnResource);
const secretIds = new Map(SECRET_PURPOSES.map((purpose) => [purpose, idOf(purpose)]));

/** Each function with its role's statements and its environment. */
const functions = functionsOf(resources);
/** The purposes whose secret a function's statements name. */
const readableBy = (statements: Statement[]) =>
  SECRET_PURPOSES.filter((purpose) => statements.some((s) => refersTo(s.Resource, secretIds.get(purpose)!)));
const readersOf = (purpose: SecretPurpose) =>
  functions
    .filter((fn) => readableBy(fn.statements).includes(purpose))
    .map((fn) => fn.name)
    .sort();
const specOf = (name: string) => catalog.find((spec) => spec.name === name)!;

describe('secrets (CDK)', () => {
  it('has one Secrets Manager secret per purpose: generated, encrypted with the app key, retained, not rotated', () => {
    const secrets = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::SecretsManager::Secret');
    expect(secrets.map(([id]) => id).sort()).toEqual([...secretIds.values()].sort());
    for (const purpose of SECRET_PURPOSES) {
      expect(resources[idOf(purpose)], purpose).toMatchObject({
        Properties: {
          Description: `Payment orchestration: ${SECRETS[purpose].description}`,
          GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
          KmsKeyId: expect.anything(),
        },
        DeletionPolicy: 'Retain',
      });
      expect(resources[idOf(purpose)]!.Properties).not.toHaveProperty('SecretString');
    }
    // rotation would invalidate what a secret hashed or sealed (AwsSolutions-SMG4 is acknowledged with the reason)
    expect(Object.values(resources).filter((r) => r.Type === 'AWS::SecretsManager::RotationSchedule')).toEqual([]);
  });

  it('grants each function GetSecretValue on exactly the secrets its catalog entry names, and nothing else of Secrets Manager', () => {
    expect(functions.map((fn) => fn.name).sort()).toEqual(catalog.map((spec) => spec.name).sort());
    for (const fn of functions) {
      const onSecrets = fn.statements.filter((s) => [...secretIds.values()].some((id) => refersTo(s.Resource, id)));
      const secretsManagerActions = fn.statements.flatMap((s) => [s.Action].flat()).filter((a) => a.startsWith('secretsmanager:'));
      const declared = [...(specOf(fn.name).secrets ?? [])].sort();
      expect(readableBy(fn.statements).sort(), fn.name).toEqual(declared);
      expect(
        onSecrets.flatMap((s) => [s.Action].flat()),
        fn.name,
      ).toEqual(declared.length ? ['secretsmanager:GetSecretValue'] : []);
      expect(secretsManagerActions, fn.name).toEqual(declared.length ? ['secretsmanager:GetSecretValue'] : []);
    }
  });

  it("names each function the ARNs of its catalog's secrets only, and never a secret's value", () => {
    for (const fn of functions) {
      const declared = specOf(fn.name).secrets ?? [];
      for (const purpose of SECRET_PURPOSES) {
        const told = { arn: fn.env[arnVariableOf(purpose)], value: fn.env[SECRETS[purpose].variable] };
        expect(told, `${fn.name} ${purpose}`).toEqual({ arn: declared.includes(purpose) ? { Ref: idOf(purpose) } : undefined, value: undefined });
      }
    }
  });

  it('lets only the listed functions read provider credentials', () => {
    expect(readersOf('credentials')).toEqual(CREDENTIAL_READERS);
  });

  it('keeps provider credentials from sign-in and from every hosted page', () => {
    const pages = functions.filter((fn) => fn.name.startsWith('hosted/'));
    const signIn = functions.filter((fn) => fn.name.startsWith('auth/'));
    expect(pages.map((fn) => fn.name).sort()).toEqual(
      catalog
        .filter((spec) => spec.name.startsWith('hosted/'))
        .map((spec) => spec.name)
        .sort(),
    );
    expect(pages.map((fn) => fn.name)).toEqual(expect.arrayContaining(['hosted/pay-submit', 'hosted/3ds-return']));
    expect(signIn.map((fn) => fn.name).sort()).toEqual([
      'auth/request-otp',
      'auth/session/get',
      'auth/session/update',
      'auth/sign-out',
      'auth/verify-otp',
    ]);
    for (const fn of [...pages, ...signIn]) {
      expect(readableBy(fn.statements), fn.name).not.toContain('credentials');
      expect(fn.env[arnVariableOf('credentials')], fn.name).toBeUndefined();
    }
  });

  it('lets the private functions that act for those pages read them, invoked by the page that names them and nothing else', () => {
    const invoked = catalog.flatMap((spec) => (spec.trigger.type === 'invoke' ? [{ name: spec.name, callers: [...spec.trigger.callers] }] : []));
    expect(invoked).toEqual([
      { name: 'private/pay-invoice', callers: ['hosted/pay-submit'] },
      { name: 'private/pay-link', callers: ['hosted/link-submit'] },
      { name: 'private/finish-authentication', callers: ['hosted/3ds-return'] },
    ]);
    const logicalIdOf = (name: string) =>
      Object.entries(resources).find(([, r]) => r.Type === 'AWS::Lambda::Function' && String(r.Properties?.Description).startsWith(`${name}:`))![0];
    for (const { name, callers } of invoked) {
      expect(readableBy(functions.find((fn) => fn.name === name)!.statements), name).toContain('credentials');
      const id = logicalIdOf(name);
      // who may invoke it: its callers, by its ARN alone
      const invokers = functions.filter((fn) =>
        fn.statements.some((s) => [s.Action].flat().includes('lambda:InvokeFunction') && refersTo(s.Resource, id)),
      );
      expect(
        invokers.map((fn) => fn.name),
        name,
      ).toEqual(callers);
      // no route reaches it: no permission for API Gateway (or anyone) to invoke it
      const permissions = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Permission' && refersTo(r.Properties?.FunctionName, id));
      expect(permissions, name).toEqual([]);
    }
    // a caller invokes only its own private function, and no other function invokes anything
    for (const fn of functions) {
      const resourcesInvoked = fn.statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('lambda:')));
      const mine = invoked.filter((i) => i.callers.includes(fn.name));
      expect(resourcesInvoked.length, fn.name).toBe(mine.length);
      for (const s of resourcesInvoked) {
        expect([s.Action].flat(), fn.name).toEqual(['lambda:InvokeFunction']);
        expect(JSON.stringify(s.Resource), fn.name).not.toContain('*');
      }
    }
  });

  it("lets only the listed functions read webhook endpoints' signing secrets", () => {
    expect(readersOf('webhooks')).toEqual(WEBHOOK_SECRET_READERS);
  });

  it('lets a function decrypt its secrets through Secrets Manager only', () => {
    for (const fn of functions.filter((f) => specOf(f.name).secrets?.length)) {
      const decrypt = fn.statements.filter((s) => [s.Action].flat().includes('kms:Decrypt') && refersTo(s.Condition, 'kms:ViaService'));
      expect(JSON.stringify(decrypt), fn.name).toContain('secretsmanager.');
    }
  });
});
