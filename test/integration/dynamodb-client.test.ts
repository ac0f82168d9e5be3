import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../shared/model/ids.ts';
import { createDocumentClient, db, MAX_ATTEMPTS, REQUEST_TIMEOUT_MS, TABLE } from '../../shared/store/client.ts';
import { commit, keyOf } from '../../shared/store/commit.ts';

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** A DynamoDB endpoint that accepts connections and never answers (a stalled table). */
async function stalledEndpoint() {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    sockets.push(socket);
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { endpoint: `http://127.0.0.1:${port}`, connections: () => connections, close: () => server.close() };
}

describe('the DynamoDB client', () => {
  it('gives up on a stalled table after a bounded number of attempts, well inside the 10 s function timeout', async () => {
    // Prepare
    const stalled = await stalledEndpoint();
    // the client as deployed (locally an attempt may take longer)
    const client = createDocumentClient(
      { endpoint: stalled.endpoint, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } },
      REQUEST_TIMEOUT_MS,
    );
    const started = Date.now();
    // Act
    const outcome = await client.send(new GetCommand({ TableName: 'stalled', Key: { pk: 'a', sk: 'b' } })).catch((e: Error) => e);
    const elapsed = Date.now() - started;
    stalled.close();
    // Assess
    expect(outcome).toBeInstanceOf(Error);
    expect(stalled.connections()).toBe(MAX_ATTEMPTS);
    expect(elapsed).toBeGreaterThanOrEqual(MAX_ATTEMPTS * REQUEST_TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(8_000);
  }, 45_000);

  it('still commits transactions, each send with its own request token', async () => {
    // Prepare
    const pk = `TEST#tx-${Date.now()}-${Math.random()}`;
    const client = createDocumentClient();
    const tokens: unknown[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        tokens.push((args.input as { ClientRequestToken?: string }).ClientRequestToken);
        return next(args);
      },
      { step: 'build', name: 'recordToken' },
    );
    // Act
    await client.send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: TABLE, Item: { pk, sk: 'A' } } }, { Put: { TableName: TABLE, Item: { pk, sk: 'B' } } }],
      }),
    );
    const again = await client
      .send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: TABLE, Item: { pk, sk: 'A' }, ConditionExpression: 'attribute_not_exists(pk)' } }],
        }),
      )
      .catch((e: Error) => e.name);
    // Assess
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: { pk, sk: 'B' } }))).Item).toEqual({ pk, sk: 'B' });
    expect(again).toBe('TransactionCanceledException');
    expect(tokens).toHaveLength(2);
    expect(new Set(tokens).size).toBe(2);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers committed for a one-item change whose answer was lost after it applied, and which the SDK sent again', async () => {
    // Prepare: an item written alone (no transaction); the first answer is lost after DynamoDB applied the put, so the
    // SDK's retry meets the item its own first attempt wrote. (A provider notification's dedup item: nothing else in
    // the shared test table, such as another file's reconciler, reads it.)
    const connectorId = newId('connector');
    const seen = (eventId: string) =>
      commit({ writes: [{ create: { entity: 'inbound', connectorId, eventId }, item: { connector_id: connectorId } }] });
    const [eventId, taken] = [`evt_${randomUUID()}`, `evt_${randomUUID()}`];
    await seen(taken);
    let sends = 0;
    db.middlewareStack.add(
      (next) => async (args) => {
        const out = await next(args);
        if (++sends === 1) throw Object.assign(new Error('the answer was lost'), { name: 'TimeoutError', $metadata: {} });
        return out;
      },
      { step: 'deserialize', name: 'loseFirstAnswer' },
    );
    // Act
    let result;
    try {
      result = await seen(eventId);
    } finally {
      db.middlewareStack.remove('loseFirstAnswer');
    }
    // Assess: committed (not refused by its own write), sent twice, stored once; an item written before is refused
    expect(result).toBe('committed');
    expect(sends).toBe(2);
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: keyOf({ entity: 'inbound', connectorId, eventId }) }))).Item).toMatchObject({
      connector_id: connectorId,
    });
    expect(await seen(taken)).toBe('refused');
  });
});
