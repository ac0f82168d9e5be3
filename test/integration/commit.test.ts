import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { newId } from '../../shared/model/ids.ts';
import { CONNECTOR } from '../../shared/model/state-machines.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { commit, keyOf } from '../../shared/store/commit.ts';
import type { Target } from '../../shared/model/targets.ts';
import { getConnector, putConnector, updateConnector } from '../../shared/store/connectors.ts';
import { copiesOf } from '../../shared/store/routing-copies.ts';

const stored = async (target: Target) => (await db.send(new GetCommand({ TableName: TABLE, Key: keyOf(target), ConsistentRead: true }))).Item;

/** A merchant's profile and its sign-in e-mail: two items, so a change of both is a transaction. */
const signUp = () => {
  const id = newId('merchant');
  const email = `${id}@example.test`;
  return { id, email, profile: { entity: 'merchant', id } as const, byEmail: { entity: 'merchant_email', email } as const };
};

describe('commit', () => {
  it('answers the refusal of the write whose condition failed, and writes nothing of the change', async () => {
    // Prepare: the e-mail is taken by a first merchant
    const first = signUp();
    await commit({ writes: [{ create: first.byEmail, item: { id: first.id } }] });
    const second = { ...signUp(), byEmail: first.byEmail };
    // Act
    const result = await commit<'profile' | 'email'>({
      writes: [
        { create: second.profile, item: { id: second.id }, refusal: 'profile' },
        { create: second.byEmail, item: { id: second.id }, refusal: 'email' },
      ],
    });
    // Assess
    expect(result).toBe('email');
    expect(await stored(second.profile)).toBeUndefined();
    expect(await stored(first.byEmail)).toMatchObject({ id: first.id });
  });

  it('answers the refusal of a write sent alone, and `refused` for a write that names none', async () => {
    // Prepare
    const merchant = signUp();
    await commit({ writes: [{ create: merchant.byEmail, item: { id: merchant.id } }] });
    // Act
    const named = await commit({ writes: [{ create: merchant.byEmail, item: { id: 'other' }, refusal: 'taken' }] });
    const unnamed = await commit({ writes: [{ create: merchant.byEmail, item: { id: 'other' } }] });
    // Assess
    expect(named).toBe('taken');
    expect(unnamed).toBe('refused');
    expect(await stored(merchant.byEmail)).toMatchObject({ id: merchant.id });
  });

  it('keeps a count below its cap: an absent count passes, one at the cap is refused by name', async () => {
    // Prepare
    const merchant = signUp();
    await commit({ writes: [{ create: merchant.profile, item: { id: merchant.id } }] });
    const countUp = () => commit({ writes: [{ update: merchant.profile, add: { things: 1 }, below: { things: 2 }, refusal: 'full' }] });
    // Act
    const results = [await countUp(), await countUp(), await countUp()];
    // Assess
    expect(results).toEqual(['committed', 'committed', 'full']);
    expect(await stored(merchant.profile)).toMatchObject({ things: 2 });
  });

  it("answers the change's `cancelled` when other transactions kept conflicting with it, and throws without one", async () => {
    // Prepare: every transaction is cancelled by a conflict (as when hot counter cells are written by many at once)
    const merchant = signUp();
    const change = {
      writes: [
        { create: merchant.profile, item: { id: merchant.id } },
        { create: merchant.byEmail, item: { id: merchant.id } },
      ],
    };
    db.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        const reasons = [{ Code: 'None' }, { Code: 'TransactionConflict' }];
        throw Object.assign(new Error('Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]'), {
          name: 'TransactionCanceledException',
          CancellationReasons: reasons,
          $metadata: {},
        });
      },
      { step: 'build', name: 'conflictAlways' },
    );
    // Act
    let contended: unknown;
    let thrown: unknown;
    try {
      contended = await commit({ ...change, cancelled: 'contended' });
      thrown = await commit(change).catch((e: Error) => e.name);
    } finally {
      db.middlewareStack.remove('conflictAlways');
    }
    // Assess
    expect(contended).toBe('contended');
    expect(thrown).toBe('TransactionCanceledException');
    expect(await stored(merchant.profile)).toBeUndefined();
  });

  it("refuses a connector's status change that CONNECTOR does not allow from its state, on the item and its routing copies", async () => {
    // Prepare: a deleted connector account
    const owner = { merchant_id: newId('merchant'), livemode: false };
    await commit({ writes: [{ create: { entity: 'merchant', id: owner.merchant_id }, item: { id: owner.merchant_id } }] });
    const at = new Date().toISOString();
    const connector = {
      id: newId('connector'),
      merchant_id: owner.merchant_id,
      provider: 'stripe' as const,
      mode: 'test' as const,
      label: null,
      status: 'active' as const,
      credentials_sealed: 'sealed',
      credentials_hint: '…1234',
      fees: { percent: 2.9, fixed: 30 },
      created_at: at,
      updated_at: at,
    };
    await putConnector(connector, 10);
    await updateConnector(owner, connector.id, { updated_at: at }, { transition: CONNECTOR.delete });
    // Act
    const enabled = await updateConnector(owner, connector.id, { label: 'again', updated_at: at }, { transition: CONNECTOR.enable });
    // Assess
    expect(enabled).toBeUndefined();
    expect(await getConnector(owner, connector.id)).toMatchObject({ status: 'deleted', label: null });
    const target = { entity: 'connector', id: connector.id, owner } as const;
    for (const copy of copiesOf(target)) expect(await stored(copy)).toMatchObject({ status: 'deleted', label: null });
  });
});
