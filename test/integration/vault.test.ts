import { randomUUID } from 'node:crypto';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { db } from '../../shared/store/client.ts';
import type { Owner } from '../../shared/model/targets.ts';
import { CVC_KEEP_MS, deleteCard, forgetCvc, putCard, readCard } from '../../shared/store/vault.ts';
import { open, seal } from '../../shared/vault-crypto.ts';
import { moveClock, resetClock } from '../support/faults.ts';

/* The card vault's store (shared/store/vault.ts) against its own tables in DynamoDB Local, sealed with raw AES keys. */

const VAULT = config.VAULT_TABLE!;
const CVCS = config.VAULT_CVC_TABLE!;
const NUMBER = '4000056655665556';
const CVC = '8317';
const CARD = { number: NUMBER, exp_month: 7, exp_year: 2031 };

const newOwner = (livemode = false): Owner => ({ merchant_id: `mer_${randomUUID()}`, livemode });
const newPm = () => `pm_${randomUUID()}`;

/** One vault table's items of one merchant, as DynamoDB holds them. */
const rawItemsIn = async (TableName: string, owner: Owner) =>
  (await db.send(new ScanCommand({ TableName, FilterExpression: 'contains(pk, :mer)', ExpressionAttributeValues: { ':mer': owner.merchant_id } })))
    .Items ?? [];

/** The vault's items of one merchant, in both its tables. */
const rawItemsOf = async (owner: Owner) => [...(await rawItemsIn(VAULT, owner)), ...(await rawItemsIn(CVCS, owner))];

/** Copies a pm's vault items, as they are, under another owner or pm id (what a bug or an attacker with write access could do). */
async function copyItems(from: { owner: Owner; pm: string }, to: { owner: Owner; pm: string }): Promise<void> {
  const scope = (owner: Owner) => (owner.livemode ? owner.merchant_id : `${owner.merchant_id}:test`);
  for (const TableName of [VAULT, CVCS]) {
    for (const item of await rawItemsIn(TableName, from.owner)) {
      if (item.pk !== `CARD#${scope(from.owner)}#${from.pm}`) continue;
      await db.send(new PutCommand({ TableName, Item: { ...item, pk: `CARD#${scope(to.owner)}#${to.pm}` } }));
    }
  }
}

afterEach(() => resetClock());

describe('card vault', () => {
  it('gives back the card and its CVC as saved', async () => {
    // Prepare
    const owner = newOwner();
    const pm = newPm();
    // Act
    await putCard(owner, pm, { ...CARD, cvc: CVC });
    // Assess
    expect(await readCard(owner, pm)).toEqual({ ...CARD, cvc: CVC });
  });

  it('holds neither the number nor the CVC in clear, in any attribute', async () => {
    // Prepare
    const owner = newOwner();
    const pm = newPm();
    // Act
    await putCard(owner, pm, { ...CARD, cvc: CVC });
    // Assess: every attribute, binary ones read as text too
    const items = await rawItemsOf(owner);
    expect(items.map((item) => item.sk).sort()).toEqual(['CARD', 'CVC']);
    const text = items
      .flatMap((item) =>
        Object.values(item).map((value) => (value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : JSON.stringify(value))),
      )
      .join('\n');
    expect(text).not.toContain(NUMBER);
    expect(text).not.toContain(NUMBER.slice(0, 12));
    expect(text).not.toContain(CVC);
  });

  it('answers undefined for a pm it holds no card for, and for another merchant or mode asking by the same pm id', async () => {
    // Prepare
    const owner = newOwner();
    const pm = newPm();
    await putCard(owner, pm, { ...CARD, cvc: CVC });
    // Act
    const unknown = await readCard(owner, newPm());
    const otherMerchant = await readCard(newOwner(), pm);
    const otherMode = await readCard({ ...owner, livemode: true }, pm);
    // Assess
    expect([unknown, otherMerchant, otherMode]).toEqual([undefined, undefined, undefined]);
  });

  it('refuses to open a sealed card moved under another pm id, merchant or mode', async () => {
    // Prepare
    const owner = newOwner();
    const pm = newPm();
    await putCard(owner, pm, { ...CARD, cvc: CVC });
    const targets = [
      { owner, pm: newPm() },
      { owner: newOwner(), pm },
      { owner: { ...owner, livemode: true }, pm: newPm() },
    ];
    for (const target of targets) await copyItems({ owner, pm }, target);
    // Act
    const reads = await Promise.allSettled(targets.map((target) => readCard(target.owner, target.pm)));
    // Assess
    const reasons = reads.map((read) => (read.status === 'rejected' ? String(read.reason) : 'opened'));
    // under another mode, the other mode's key cannot even unwrap it
    expect(reasons).toEqual([
      expect.stringMatching(/sealed under another encryption context/),
      expect.stringMatching(/sealed under another encryption context/),
      expect.not.stringMatching(/opened/),
    ]);
    expect(await readCard(owner, pm)).toEqual({ ...CARD, cvc: CVC });
  });

  it('forgets the CVC when told, and again without complaint, keeping the card', async () => {
    // Prepare
    const owner = newOwner();
    const pm = newPm();
    await putCard(owner, pm, { ...CARD, cvc: CVC });
    // Act
    await forgetCvc(owner, pm);
    await forgetCvc(owner, pm);
    // Assess
    expect(await readCard(owner, pm)).toEqual(CARD);
    expect((await rawItemsOf(owner)).map((item) => item.sk)).toEqual(['CARD']);
  });

  it('keeps the CVC for one hour at most, even before TTL deletes it', async () => {
    // Prepare
    const owner = newOwner();
    const pm = newPm();
    await putCard(owner, pm, { ...CARD, cvc: CVC });
    // Act
    moveClock(CVC_KEEP_MS - 60_000);
    const withinTheHour = await readCard(owner, pm);
    moveClock(60_000);
    const afterTheHour = await readCard(owner, pm);
    // Assess
    expect(withinTheHour).toEqual({ ...CARD, cvc: CVC });
    expect(afterTheHour).toEqual(CARD);
    const cvcItem = (await rawItemsOf(owner)).find((item) => item.sk === 'CVC');
    expect(Number(cvcItem?.expires_at) * 1000).toBeLessThanOrEqual(Date.now() + CVC_KEEP_MS);
  });

  it('replaces the card when saved again: the new expiry, and no CVC when none was given', async () => {
    // Prepare
    const owner = newOwner();
    const pm = newPm();
    await putCard(owner, pm, { ...CARD, cvc: CVC });
    // Act
    await putCard(owner, pm, { ...CARD, exp_year: 2033 });
    // Assess
    expect(await readCard(owner, pm)).toEqual({ ...CARD, exp_year: 2033 });
  });

  it('keeps the CVC apart: only the card in the card table, only the CVC (expiring) in the CVC table', async () => {
    // Prepare
    const owner = newOwner();
    const pm = newPm();
    // Act
    await putCard(owner, pm, { ...CARD, cvc: CVC });
    // Assess
    expect((await rawItemsIn(VAULT, owner)).map((item) => item.sk)).toEqual(['CARD']);
    const cvcs = await rawItemsIn(CVCS, owner);
    expect(cvcs.map((item) => item.sk)).toEqual(['CVC']);
    expect(Number(cvcs[0]!.expires_at) * 1000).toBeLessThanOrEqual(Date.now() + CVC_KEEP_MS);
  });

  it('deletes the card and its CVC, and again without complaint', async () => {
    // Prepare
    const owner = newOwner();
    const pm = newPm();
    await putCard(owner, pm, { ...CARD, cvc: CVC });
    // Act
    await deleteCard(owner, pm);
    await deleteCard(owner, pm);
    // Assess
    expect(await readCard(owner, pm)).toBeUndefined();
    expect(await rawItemsOf(owner)).toEqual([]);
  });

  it('seals test and live cards under different keys: a live card does not open with the test key', async () => {
    // Prepare: the same context but its mode, which chooses the key
    const context = { merchant_id: 'mer_keys', payment_method_id: 'pm_keys', part: 'card' };
    const live = await seal(NUMBER, { ...context, livemode: 'true' });
    const test = await seal(NUMBER, { ...context, livemode: 'false' });
    // Act
    const liveAsTest = open(live, { ...context, livemode: 'false' });
    const testAsLive = open(test, { ...context, livemode: 'true' });
    // Assess: refused for want of the key, before any context is compared
    await expect(liveAsTest).rejects.toThrow();
    await expect(liveAsTest).rejects.not.toThrow(/another encryption context/);
    await expect(testAsLive).rejects.not.toThrow(/another encryption context/);
    expect(await open(live, { ...context, livemode: 'true' })).toBe(NUMBER);
  });
});
