import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { clock } from '../model/clock.ts';
import type { VaultContext } from '../vault-crypto.ts';
import { conditionalWrite, db, ttl } from './client.ts';
import { type Key, scopeOf } from './keys.ts';
import type { Owner } from '../model/targets.ts';

/**
 * The card vault: DynamoDB access to its own two tables, the only module that reads or writes them. Card numbers are
 * in the card table (point-in-time recovery), CVCs in the CVC table, which has none, so no backup can bring a CVC
 * back. Keys live here, not in keys.ts, since they are other tables':
 * | pattern                               | table | key                                             |
 * |---------------------------------------|-------|-------------------------------------------------|
 * | a pm's card (number, expiry), sealed  | card  | pk = CARD#<own>#<pm>, sk = CARD (TTL expires_at: a pk_'s, until kept) |
 * | its CVC, sealed, at most one hour     | CVC   | pk = CARD#<own>#<pm>, sk = CVC (TTL expires_at) |
 */
export interface VaultCard {
  number: string;
  exp_month: number;
  exp_year: number;
}

/** PCI DSS 3.3.1: the CVC is kept until the first authorization with it, and never longer than this. */
export const CVC_KEEP_MS = 60 * 60_000;

const vaultKeys = {
  partition: (owner: Owner, paymentMethodId: string): string => `CARD#${scopeOf(owner)}#${paymentMethodId}`,
  card: (owner: Owner, paymentMethodId: string): Key => ({ pk: vaultKeys.partition(owner, paymentMethodId), sk: 'CARD' }),
  cvc: (owner: Owner, paymentMethodId: string): Key => ({ pk: vaultKeys.partition(owner, paymentMethodId), sk: 'CVC' }),
};

/** The Encryption SDK takes a few hundred ms to load: read on first use, not at every cold start of a vault user. */
const sealing = () => import('../vault-crypto.ts');

const vaultTable = (): string => {
  if (!config.VAULT_TABLE) throw new Error('This function may not use the card vault (no VAULT_TABLE)');
  return config.VAULT_TABLE;
};
const cvcTable = (): string => {
  if (!config.VAULT_CVC_TABLE) throw new Error('This function may not use the card vault (no VAULT_CVC_TABLE)');
  return config.VAULT_CVC_TABLE;
};

/** What a sealed value belongs to; `part` keeps a sealed CVC from being read as a card and the other way round. */
const contextOf = (owner: Owner, paymentMethodId: string, part: 'card' | 'cvc'): VaultContext => ({
  merchant_id: owner.merchant_id,
  livemode: String(owner.livemode),
  payment_method_id: paymentMethodId,
  part,
});

/**
 * Seals the card (number and expiry) under the merchant and pm id; the CVC, when given, sealed apart, kept ≤ 1 hour.
 * Replaces what was there. `expiresAt`: the card's payment method's expiry (epoch seconds), when it has one.
 */
export async function putCard(owner: Owner, paymentMethodId: string, card: VaultCard & { cvc?: string }, expiresAt?: number): Promise<void> {
  const TableName = vaultTable();
  const CvcTable = cvcTable();
  const { seal } = await sealing();
  const { number, exp_month, exp_year, cvc } = card;
  const sealedCard = await seal(JSON.stringify({ number, exp_month, exp_year }), contextOf(owner, paymentMethodId, 'card'));
  const cvcItem =
    cvc === undefined
      ? undefined
      : {
          ...vaultKeys.cvc(owner, paymentMethodId),
          sealed: await seal(cvc, contextOf(owner, paymentMethodId, 'cvc')),
          expires_at: ttl(clock.now() + CVC_KEEP_MS),
        };
  // Two writes at once, not a transaction (half the units): if one fails the save fails and no payment method names
  // the card yet; a retry writes both again. A CVC left behind is the same card's and expires within the hour.
  await Promise.all([
    db.send(
      new PutCommand({
        TableName,
        Item: { ...vaultKeys.card(owner, paymentMethodId), sealed: sealedCard, ...(expiresAt === undefined ? {} : { expires_at: expiresAt }) },
      }),
    ),
    cvcItem
      ? db.send(new PutCommand({ TableName: CvcTable, Item: cvcItem }))
      : db.send(new DeleteCommand({ TableName: CvcTable, Key: vaultKeys.cvc(owner, paymentMethodId) })),
  ]);
}

/** The card, with its CVC only while kept (not used, not older than one hour); undefined when the vault holds none. */
export async function readCard(owner: Owner, paymentMethodId: string): Promise<(VaultCard & { cvc?: string }) | undefined> {
  const [cardOut, cvcOut] = await Promise.all([
    db.send(new GetCommand({ TableName: vaultTable(), Key: vaultKeys.card(owner, paymentMethodId), ConsistentRead: true })),
    db.send(new GetCommand({ TableName: cvcTable(), Key: vaultKeys.cvc(owner, paymentMethodId), ConsistentRead: true })),
  ]);
  const { open } = await sealing();
  const cardItem = cardOut.Item;
  // TTL deletes lazily (within days): an item past its time is as good as gone.
  if (!cardItem || pastItsTime(cardItem)) return undefined;
  const card = JSON.parse(await open(cardItem.sealed as Uint8Array, contextOf(owner, paymentMethodId, 'card'))) as VaultCard;
  const cvcItem = cvcOut.Item;
  if (!cvcItem || pastItsTime(cvcItem)) return card;
  return { ...card, cvc: await open(cvcItem.sealed as Uint8Array, contextOf(owner, paymentMethodId, 'cvc')) };
}

const pastItsTime = (item: Record<string, unknown>): boolean => item.expires_at !== undefined && Number(item.expires_at) * 1000 <= clock.now();

/**
 * Keeps the card past its expiry (its payment method, a publishable key's, is attached or charged): false when the
 * vault holds none. Kept already, nothing changes. Needs no key: the sealed card is left as it is.
 */
export async function keepCard(owner: Owner, paymentMethodId: string): Promise<boolean> {
  return conditionalWrite(
    new UpdateCommand({
      TableName: vaultTable(),
      Key: vaultKeys.card(owner, paymentMethodId),
      UpdateExpression: 'REMOVE expires_at',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(expires_at) OR expires_at > :now)',
      ExpressionAttributeValues: { ':now': ttl(clock.now()) },
    }),
  );
}

/** Deletes the CVC (after the first authorization with it). Idempotent. */
export async function forgetCvc(owner: Owner, paymentMethodId: string): Promise<void> {
  await db.send(new DeleteCommand({ TableName: cvcTable(), Key: vaultKeys.cvc(owner, paymentMethodId) }));
}

/** Deletes the card and its CVC (the payment method is deleted). Idempotent. */
export async function deleteCard(owner: Owner, paymentMethodId: string): Promise<void> {
  await Promise.all([
    db.send(new DeleteCommand({ TableName: vaultTable(), Key: vaultKeys.card(owner, paymentMethodId) })),
    forgetCvc(owner, paymentMethodId),
  ]);
}
