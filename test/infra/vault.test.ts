import { type CfnResource, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { VAULT_DELETES, VAULT_KEEPS, VAULT_READS, VAULT_TABLE_KEY_USE, VAULT_WRITES } from '../../infra/constructs/functions.ts';
import { PaymentOrchestrationStack } from '../../infra/stack.ts';
import { defaultDeployment, mergedTemplate, type Resource, functionsOf, refersTo, type Statement } from './templates.ts';

/*
 * The card vault in CDK (infra/constructs/vault.ts): its own stack, a key per mode, a card table and a CVC table, and
 * grants that follow the catalog's `vault`.
 */

/** The functions that may open cards, listed by name: a change to this list is a change to who can see card numbers. */
/** The functions that may open a card: a create, the invoice payment page (a saved card's number), renewals (in time, and on a test clock). */
const DECRYPTING_FUNCTIONS = ['payments/create', 'private/pay-invoice', 'private/pay-link', 'workers/renewal', 'workers/test-clock-advance'];
/** The functions that may only seal cards: saving a payment method, and the test helper sealing an updated one. */
const ENCRYPTING_FUNCTIONS = ['payment-methods/create', 'test-helpers/payment-method-update'];
/** The functions that may only delete cards: deleting a payment method, alone or with its customer (or its test clock's). */
const DELETING_FUNCTIONS = ['customers/delete', 'payment-methods/delete', 'test-clocks/delete'];
/** The functions that may only keep a card past its expiry (a publishable key's payment method attached): no key use. */
const KEEPING_FUNCTIONS = ['payment-methods/attach'];

/** The deployment read as one template, with what each function may do and is told. */
function inspect(stack: PaymentOrchestrationStack) {
  const resources = mergedTemplate(stack).toJSON().Resources as Record<string, Resource>;
  const { keys, table, cvcTable } = stack.vaultStack.vault;
  const idOf = (construct: { node: { defaultChild?: unknown } }) => NestedStack.of(table)!.getLogicalId(construct.node.defaultChild as CfnResource);
  const testKeyId = idOf(keys.test);
  const liveKeyId = idOf(keys.live);
  const tableId = idOf(table);
  const cvcTableId = idOf(cvcTable);
  const functions = functionsOf(resources);
  /** The actions a function may take on `id`, those allowed only through DynamoDB apart. */
  const actionsOn = (statements: Statement[], id: string) => {
    const on = statements.filter((s) => refersTo(s.Resource, id));
    const actions = (list: Statement[]) => list.flatMap((s) => [s.Action].flat()).sort();
    return { direct: actions(on.filter((s) => !s.Condition)), viaDynamoDb: actions(on.filter((s) => refersTo(s.Condition, 'kms:ViaService'))) };
  };
  return { resources, testKeyId, liveKeyId, tableId, cvcTableId, functions, actionsOn };
}

const stack = await defaultDeployment();

describe('card vault (CDK)', () => {
  const { resources, testKeyId, liveKeyId, tableId, cvcTableId, functions, actionsOn } = inspect(stack);

  it('keeps the vault keys and tables in a stack of their own, and only them', () => {
    const vault = stack.vaultStack.vault;
    const vaultStack = NestedStack.of(vault.table);
    expect(vaultStack?.node.path).toBe('PaymentOrchestration/Vault');
    for (const part of [vault.keys.test, vault.keys.live, vault.cvcTable]) expect(NestedStack.of(part)).toBe(vaultStack);
    const own = Template.fromStack(vaultStack as Stack).toJSON().Resources as Record<string, Resource>;
    expect(
      Object.values(own)
        .map((r) => r.Type)
        .filter((type) => type !== 'AWS::CDK::Metadata')
        .sort(),
    ).toEqual(['AWS::DynamoDB::Table', 'AWS::DynamoDB::Table', 'AWS::KMS::Key', 'AWS::KMS::Key']);
  });

  it('has two customer-managed keys, one per mode, rotated and retained on delete', () => {
    expect(testKeyId).not.toBe(liveKeyId);
    for (const id of [testKeyId, liveKeyId]) {
      expect(resources[id], id).toMatchObject({ Type: 'AWS::KMS::Key', Properties: { EnableKeyRotation: true }, DeletionPolicy: 'Retain' });
    }
  });

  it('has a card table with PITR and a CVC table without: on demand, deletion protection, TTL on expires_at, encrypted, retained', () => {
    for (const [id, pitr] of [
      [tableId, true],
      [cvcTableId, false],
    ] as const) {
      expect(resources[id], id).toMatchObject({
        Type: 'AWS::DynamoDB::Table',
        Properties: {
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: pitr },
          DeletionProtectionEnabled: true,
          TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
          SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: { 'Fn::GetAtt': [liveKeyId, 'Arn'] } },
        },
        DeletionPolicy: 'Retain',
      });
      expect(resources[id]!.Properties).not.toHaveProperty('StreamSpecification');
    }
  });

  it('lets only the decrypt functions call kms:Decrypt on either vault key (other than through DynamoDB)', () => {
    for (const keyId of [testKeyId, liveKeyId]) {
      const decrypting = functions.filter((fn) => actionsOn(fn.statements, keyId).direct.includes('kms:Decrypt')).map((fn) => fn.name);
      expect(decrypting.sort()).toEqual(DECRYPTING_FUNCTIONS);
    }
  });

  it('grants each kind exactly its use of the keys and tables, and the functions without `vault` nothing', () => {
    const uses = Object.fromEntries(
      functions.map((fn) => [
        fn.name,
        {
          testKey: actionsOn(fn.statements, testKeyId),
          liveKey: actionsOn(fn.statements, liveKeyId),
          table: actionsOn(fn.statements, tableId).direct,
          cvcTable: actionsOn(fn.statements, cvcTableId).direct,
        },
      ]),
    );
    const viaDynamoDb = [...VAULT_TABLE_KEY_USE].sort();
    const expected = (direct: string[], tables: string[]) => ({
      testKey: { direct, viaDynamoDb: [] },
      liveKey: { direct, viaDynamoDb },
      table: [...tables].sort(),
      cvcTable: [...tables].sort(),
    });
    for (const name of DELETING_FUNCTIONS) expect(uses[name], name).toEqual(expected([], VAULT_DELETES));
    for (const name of ENCRYPTING_FUNCTIONS) expect(uses[name], name).toEqual(expected(['kms:GenerateDataKey'], VAULT_WRITES));
    for (const name of DECRYPTING_FUNCTIONS) {
      expect(uses[name], name).toEqual({
        ...expected(['kms:Decrypt', 'kms:GenerateDataKey'], [...VAULT_WRITES, ...VAULT_READS]),
        table: [...VAULT_WRITES, ...VAULT_READS, ...VAULT_KEEPS].sort(),
      });
    }
    for (const name of KEEPING_FUNCTIONS) expect(uses[name], name).toEqual({ ...expected([], []), table: [...VAULT_KEEPS].sort() });
    const users = [...DELETING_FUNCTIONS, ...KEEPING_FUNCTIONS, ...ENCRYPTING_FUNCTIONS, ...DECRYPTING_FUNCTIONS];
    const others = Object.entries(uses).filter(([name]) => !users.includes(name));
    const anything = (use: (typeof uses)[string]) =>
      [use.testKey.direct, use.testKey.viaDynamoDb, use.liveKey.direct, use.liveKey.viaDynamoDb, use.table, use.cvcTable].flat().length > 0;
    expect(others.filter(([, use]) => anything(use))).toEqual([]);
  });

  it('names the vault tables and keys to its users only', () => {
    const names = (fn: (typeof functions)[number]) => ({
      VAULT_TABLE: fn.env.VAULT_TABLE,
      VAULT_CVC_TABLE: fn.env.VAULT_CVC_TABLE,
      VAULT_TEST_KMS_KEY_ARN: fn.env.VAULT_TEST_KMS_KEY_ARN,
      VAULT_LIVE_KMS_KEY_ARN: fn.env.VAULT_LIVE_KMS_KEY_ARN,
    });
    for (const fn of functions) {
      if ([...DELETING_FUNCTIONS, ...KEEPING_FUNCTIONS, ...ENCRYPTING_FUNCTIONS, ...DECRYPTING_FUNCTIONS].includes(fn.name)) {
        expect(names(fn), fn.name).toEqual({
          VAULT_TABLE: { Ref: tableId },
          VAULT_CVC_TABLE: { Ref: cvcTableId },
          VAULT_TEST_KMS_KEY_ARN: { 'Fn::GetAtt': [testKeyId, 'Arn'] },
          VAULT_LIVE_KMS_KEY_ARN: { 'Fn::GetAtt': [liveKeyId, 'Arn'] },
        });
      } else {
        expect(names(fn), fn.name).toEqual({
          VAULT_TABLE: undefined,
          VAULT_CVC_TABLE: undefined,
          VAULT_TEST_KMS_KEY_ARN: undefined,
          VAULT_LIVE_KMS_KEY_ARN: undefined,
        });
      }
    }
  });
});
