import { App, type CfnResource, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { catalog, type FunctionSpec } from '../../functions/catalog.ts';
import { VAULT_KEEPS, VAULT_READS, VAULT_TABLE_KEY_USE, VAULT_WRITES } from '../../infra/constructs/functions.ts';
import { PaymentOrchestrationStack } from '../../infra/stack.ts';
import { mergedTemplate, type Resource } from './templates.ts';

/*
 * The card vault in CDK (infra/constructs/vault.ts): its own stack, key and table, and grants that follow the
 * catalog's `vault`. No catalog entry uses the vault yet, so a catalog with one function of each kind stands in.
 */

/** The functions that may open cards, listed by name: a change to this list is a change to who can see card numbers. */
/** The functions that may open a card: a create, the invoice payment page (a saved card's number), renewals (in time, and on a test clock). */
const DECRYPTING_FUNCTIONS = ['hosted/pay-submit', 'payments/create', 'workers/renewal', 'workers/test-clock-advance'];
/** The functions that may only seal cards: saving a payment method, and the test helper sealing an updated one. */
const ENCRYPTING_FUNCTIONS = ['payment-methods/create', 'test-helpers/payment-method-update'];
/** The functions that may only keep a card past its expiry (a publishable key's payment method attached): no key use. */
const KEEPING_FUNCTIONS = ['payment-methods/attach'];

const build = (specs: readonly FunctionSpec[]) =>
  new PaymentOrchestrationStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'PaymentOrchestration', { catalog: specs });

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** The deployment read as one template, with what each function may do and is told. */
function inspect(stack: PaymentOrchestrationStack) {
  const resources = mergedTemplate(stack).toJSON().Resources as Record<string, Resource>;
  const { key, table } = stack.vaultStack.vault;
  const idOf = (construct: { node: { defaultChild?: unknown } }) => NestedStack.of(key)!.getLogicalId(construct.node.defaultChild as CfnResource);
  const keyId = idOf(key);
  const tableId = idOf(table);
  const refersTo = (value: unknown, id: string) => JSON.stringify(value ?? null).includes(`"${id}"`);
  const policies = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Policy');
  const functions = Object.values(resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function')
    .map((fn) => {
      const roleId = JSON.stringify(fn.Properties?.Role).match(/"Fn::GetAtt":\["([A-Za-z0-9]+)"/)![1]!;
      const statements = policies
        .filter((p) => refersTo(p.Properties?.Roles, roleId))
        .flatMap((p) => (p.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
      const env = (fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
      return { name: String(fn.Properties?.Description).split(':')[0]!, statements, env };
    });
  /** The actions a function may take on `id`, those allowed only through DynamoDB apart. */
  const actionsOn = (statements: Statement[], id: string) => {
    const on = statements.filter((s) => refersTo(s.Resource, id));
    const actions = (list: Statement[]) => list.flatMap((s) => [s.Action].flat()).sort();
    return { direct: actions(on.filter((s) => !s.Condition)), viaDynamoDb: actions(on.filter((s) => refersTo(s.Condition, 'kms:ViaService'))) };
  };
  return { resources, keyId, tableId, functions, actionsOn };
}

describe('card vault (CDK)', () => {
  const stack = build(catalog);
  const { resources, keyId, tableId, functions, actionsOn } = inspect(stack);

  it('keeps the vault key and table in a stack of their own, and only them', () => {
    const vaultStack = NestedStack.of(stack.vaultStack.vault.key);
    expect(vaultStack?.node.path).toBe('PaymentOrchestration/Vault');
    expect(NestedStack.of(stack.vaultStack.vault.table)).toBe(vaultStack);
    const own = Template.fromStack(vaultStack as Stack).toJSON().Resources as Record<string, Resource>;
    expect(
      Object.values(own)
        .map((r) => r.Type)
        .filter((type) => type !== 'AWS::CDK::Metadata')
        .sort(),
    ).toEqual(['AWS::DynamoDB::Table', 'AWS::KMS::Key']);
  });

  it('has its own customer-managed key, rotated and retained on delete', () => {
    expect(resources[keyId]).toMatchObject({ Type: 'AWS::KMS::Key', Properties: { EnableKeyRotation: true }, DeletionPolicy: 'Retain' });
  });

  it('has its own table: on demand, PITR, deletion protection, TTL on expires_at, encrypted with the vault key, retained', () => {
    expect(resources[tableId]).toMatchObject({
      Type: 'AWS::DynamoDB::Table',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } },
      },
      DeletionPolicy: 'Retain',
    });
    expect(resources[tableId]!.Properties).not.toHaveProperty('StreamSpecification');
  });

  it('lets only the decrypt functions call kms:Decrypt on the vault key (other than through DynamoDB)', () => {
    const decrypting = functions.filter((fn) => actionsOn(fn.statements, keyId).direct.includes('kms:Decrypt')).map((fn) => fn.name);
    expect(decrypting.sort()).toEqual(DECRYPTING_FUNCTIONS);
  });

  it('grants each kind exactly its use of the key and table, and the functions without `vault` nothing', () => {
    const uses = Object.fromEntries(
      functions.map((fn) => [fn.name, { key: actionsOn(fn.statements, keyId), table: actionsOn(fn.statements, tableId).direct }]),
    );
    const viaDynamoDb = [...VAULT_TABLE_KEY_USE].sort();
    for (const name of ENCRYPTING_FUNCTIONS) {
      expect(uses[name], name).toEqual({ key: { direct: ['kms:GenerateDataKey'], viaDynamoDb }, table: [...VAULT_WRITES].sort() });
    }
    for (const name of DECRYPTING_FUNCTIONS) {
      expect(uses[name], name).toEqual({
        key: { direct: ['kms:Decrypt', 'kms:GenerateDataKey'], viaDynamoDb },
        table: [...VAULT_WRITES, ...VAULT_READS, ...VAULT_KEEPS].sort(),
      });
    }
    for (const name of KEEPING_FUNCTIONS) {
      expect(uses[name], name).toEqual({ key: { direct: [], viaDynamoDb }, table: [...VAULT_KEEPS].sort() });
    }
    const users = [...ENCRYPTING_FUNCTIONS, ...DECRYPTING_FUNCTIONS, ...KEEPING_FUNCTIONS];
    const others = Object.entries(uses).filter(([name]) => !users.includes(name));
    expect(others.filter(([, use]) => use.key.direct.length + use.key.viaDynamoDb.length + use.table.length > 0)).toEqual([]);
  });

  it('names the vault table and key to its users only', () => {
    for (const fn of functions) {
      const vault = { VAULT_TABLE: fn.env.VAULT_TABLE, VAULT_KMS_KEY_ARN: fn.env.VAULT_KMS_KEY_ARN };
      if ([...ENCRYPTING_FUNCTIONS, ...DECRYPTING_FUNCTIONS, ...KEEPING_FUNCTIONS].includes(fn.name)) {
        expect(vault, fn.name).toEqual({ VAULT_TABLE: { Ref: tableId }, VAULT_KMS_KEY_ARN: { 'Fn::GetAtt': [keyId, 'Arn'] } });
      } else {
        expect(vault, fn.name).toEqual({ VAULT_TABLE: undefined, VAULT_KMS_KEY_ARN: undefined });
      }
    }
  });
});
