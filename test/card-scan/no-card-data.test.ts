/**
 * After the whole suite (this project runs last, see vitest.config.ts): no card number in the main table (its
 * idempotency records read field by field), a queue message, a log line or a local e-mail; the vault holds none in
 * clear.
 * Webhook payloads are the events' stored payloads (model/events.ts `eventPayload`): the table scan covers them.
 */
import { type AttributeValue, ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { dynamoClient } from '../../infra/local/services.ts';
import { cardFieldsIn, cardNumbersIn, luhnRunsIn, masked, readableItem } from '../support/card-numbers.ts';
import { printedOutput, sentMessages, stillRunning } from '../support/leak-capture.ts';
import { OWN_TABLE_INFIX } from '../support/own-table.ts';

const capture = inject('leakCapture');
if (!capture) throw new Error('The card scan reads what the integration project left: run both, e.g. `npx vitest run`.');
const db = dynamoClient(capture.dynamoEndpoint);
const SEGMENTS = 4;

/** Every item, in four parallel segments (a whole suite's table holds tens of thousands). */
async function everyItem(TableName: string): Promise<Record<string, AttributeValue>[]> {
  const segment = async (Segment: number) => {
    const items: Record<string, AttributeValue>[] = [];
    let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName, ExclusiveStartKey, Segment, TotalSegments: SEGMENTS }));
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  };
  return (await Promise.all(Array.from({ length: SEGMENTS }, (_, i) => segment(i)))).flat();
}

/** Every item of the main table and of the files' own ones (support/own-table.ts). */
async function everyMainItem(): Promise<Record<string, AttributeValue>[]> {
  const names = (await db.send(new ListTablesCommand({}))).TableNames ?? [];
  const main = names.filter((name) => name === capture.tableName || name.startsWith(`${capture.tableName}${OWN_TABLE_INFIX}`));
  return (await Promise.all(main.map(everyItem))).flat();
}

/** One line per card number found, masked, and where. */
const cardsIn = (where: string, text: string): string[] => cardNumbersIn(text).map((n) => `${masked(n)} in ${where}`);

const asJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

describe('card data after the whole suite', { timeout: 360_000 }, () => {
  it('is scanned after every integration test file has finished', () => {
    // Assess
    expect(stillRunning(capture.dir)).toEqual([]);
  });

  it('is in no main-table item, and no item has a field named like a CVC or a card number holding digits', async () => {
    // Act
    const items = (await everyMainItem()).map(readableItem);

    // Assess
    const key = (item: Record<string, unknown>) => `${String(item.pk)} / ${String(item.sk)}`;
    expect(items.length).toBeGreaterThan(0);
    expect(items.flatMap((item) => cardsIn(key(item), JSON.stringify(item)))).toEqual([]);
    expect(items.flatMap((item) => cardFieldsIn(item).map((field) => `${field} of ${key(item)}`))).toEqual([]);
  });

  it('is in no idempotency record: each keeps a keyed hash of its request and the response, nothing else', async () => {
    // Act: the records every Idempotency-Key of the suite left (requests with cards among them)
    const records = (await everyMainItem()).map(readableItem).filter((item) => item.type === 'idempotency');

    // Assess: no field a request's body could hide in; a response that holds no card, read as its client reads it
    const kept = new Set([
      'pk',
      'sk',
      'type',
      'request_hash',
      'status',
      'locked_until',
      'first_at',
      'expires_at',
      'response_status',
      'response_body',
    ]);
    expect(records.length).toBeGreaterThan(0);
    expect(
      records.flatMap((r) =>
        Object.keys(r)
          .filter((field) => !kept.has(field))
          .map((field) => `${field} of ${String(r.pk)}`),
      ),
    ).toEqual([]);
    expect(records.filter((r) => !/^[0-9a-f]{64}$/.test(String(r.request_hash))).map((r) => String(r.pk))).toEqual([]);
    const responses = records.flatMap((r) => (typeof r.response_body === 'string' ? [{ at: String(r.pk), body: r.response_body }] : []));
    expect(responses.length).toBeGreaterThan(0);
    expect(responses.flatMap(({ at, body }) => cardsIn(`the response kept for ${at}`, body))).toEqual([]);
    expect(responses.flatMap(({ at, body }) => cardFieldsIn(asJson(body)).map((field) => `${field} of the response kept for ${at}`))).toEqual([]);
  });

  it('is in no message sent to a queue or a dead-letter queue', () => {
    // Act: what was sent, so also what consumers deleted and what SQS moved to a dead-letter queue
    const messages = sentMessages(capture.dir);

    // Assess
    expect(messages.flatMap((body, i) => cardsIn(`message ${i + 1} of ${messages.length}`, body))).toEqual([]);
    expect(messages.flatMap((body, i) => cardFieldsIn(asJson(body)).map((field) => `${field} of message ${i + 1}`))).toEqual([]);
  });

  it('is in no log line, local e-mail or message, nor in what the local runtime printed', () => {
    // Act
    const outputs = printedOutput(capture.dir);

    // Assess
    const found = outputs.flatMap(({ file, text }) =>
      text.split('\n').flatMap((line, i) => cardsIn(`${file} line ${i + 1}: ${line.replace(/\d(?:[ -]?\d){5,}/g, '…').slice(0, 120)}`, line)),
    );
    expect(found).toEqual([]);
  });

  it('is not held in clear by the vault, in its card table or its CVC table', async () => {
    // Act
    const [cards, cvcs] = await Promise.all([everyItem(capture.vaultTableName), everyItem(capture.cvcTableName)]);

    // Assess: any Luhn-valid run at all, in every attribute, sealed bytes read as they are and decoded
    const raw = (item: Record<string, AttributeValue>) =>
      Object.values(item).map((value) => (value.B ? Buffer.from(value.B).toString('latin1') : JSON.stringify(value)));
    const found = [...cards, ...cvcs].flatMap((item) =>
      [JSON.stringify(readableItem(item)), ...raw(item)].flatMap((text) => luhnRunsIn(text).map((n) => `${masked(n)} in ${item.pk?.S}`)),
    );
    expect(found).toEqual([]);
  });

  it('keeps CVCs only in the CVC table, sealed and expiring, and no CVC in the card table', async () => {
    // Act
    const [cards, cvcs] = await Promise.all([everyItem(capture.vaultTableName), everyItem(capture.cvcTableName)]);

    // Assess: the suite saved cards with CVCs that were never charged, so the CVC table holds some
    expect(cvcs.length).toBeGreaterThan(0);
    expect(cards.filter((item) => item.sk?.S !== 'CARD').map((item) => `${item.pk?.S} / ${item.sk?.S}`)).toEqual([]);
    const malformed = cvcs.filter((item) => item.sk?.S !== 'CVC' || !item.sealed?.B || !item.expires_at?.N || Object.keys(item).length !== 4);
    expect(malformed.map((item) => `${item.pk?.S} / ${item.sk?.S}`)).toEqual([]);
  });
});
