import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Change } from '../../shared/store/commit.ts';
import type { Operation } from '../../shared/model/targets.ts';

/**
 * The driver of every external operation (runOperation, takeOverOperation), with one item held in memory in place of
 * the table: the replay of a finished run, 409 with Retry-After while another run's lease holds the item, the
 * take-over once it ended, and a begin refused because another run moved first.
 */
const item = vi.hoisted(() => ({ op: undefined as Operation | undefined, commits: 0 }));
vi.mock('../../shared/store/commit.ts', () => ({
  // the conditions commit.ts writes for `begin` and `takeOver`, on the one item
  commit: async (change: Change) => {
    item.commits++;
    const step = (change.writes[0] as { operation?: Record<string, unknown> }).operation ?? {};
    if ('begin' in step) {
      if (item.op) return 'refused';
      item.op = step.begin as Operation;
    } else if ('takeOver' in step) {
      const held = item.op;
      if (!held || held.id !== step.takeOver || held.lease_until >= (step.now as number)) return 'refused';
      item.op = { ...held, lease_until: step.leaseUntil as number };
    }
    return 'committed';
  },
}));

const { clock } = await import('../../shared/model/clock.ts');
const { LEASE_MS, runOperation, takeOverOperation } = await import('../../shared/domain/operations.ts');
type Kind = Parameters<typeof runOperation<Run, string, string>>[0];

interface Run {
  opId: string;
  /** what a finished run of this request answered */
  finished?: string;
}

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const calls: { id: string; retried: boolean }[] = [];
const kind: Kind = {
  what: 'this thing',
  target: () => ({ entity: 'payment', id: 'pay_unit', owner: { merchant_id: 'mer_unit', livemode: false } }),
  replay: ({ finished }) => finished,
  held: () => item.op,
  own: ({ opId }, held) => held.id === opId,
  start: ({ opId }) => {
    const op: Operation = { id: opId, kind: 'capture', lease_until: clock.now() + LEASE_MS };
    return { op, begin: { writes: [{ update: kind.target({ opId }), operation: { begin: op } }] } };
  },
  call: async (op, _run, retried) => {
    calls.push({ id: op.id, retried });
    return `called ${op.id}`;
  },
  record: async (result) => {
    item.op = undefined;
    return `recorded ${result}`;
  },
};

beforeEach(() => {
  item.op = undefined;
  item.commits = 0;
  calls.length = 0;
  clock.now = () => NOW;
});

describe('the operation driver', () => {
  it('begins, calls under the operation id and records', async () => {
    // Act
    const answer = await runOperation(kind, { opId: 'op_1' });
    // Assess
    expect(answer).toBe('recorded called op_1');
    expect(calls).toEqual([{ id: 'op_1', retried: false }]);
  });

  it('replays a run of the same request that finished, with no write and no call', async () => {
    // Act
    const answer = await runOperation(kind, { opId: 'op_1', finished: 'the first answer' });
    // Assess
    expect(answer).toBe('the first answer');
    expect([item.commits, calls.length]).toEqual([0, 0]);
  });

  it('answers 409 with Retry-After while another run holds the item, and calls nothing', async () => {
    // Prepare: another request's operation, its lease running 30 s more
    item.op = { id: 'op_other', kind: 'capture', lease_until: NOW + 30_000 };
    // Act
    const refused = await runOperation(kind, { opId: 'op_1' }).catch((error: unknown) => error);
    // Assess
    expect(refused).toMatchObject({ status: 409, code: 'operation_in_progress', headers: { 'Retry-After': '30' } });
    expect([item.commits, calls.length]).toEqual([0, 0]);
  });

  it('takes its own operation over once the lease ended, calling again under the same id; 409 while it runs', async () => {
    // Prepare: this request's earlier run died after beginning
    item.op = { id: 'op_1', kind: 'capture', lease_until: NOW + 5_000 };
    // Act
    const whileHeld = await runOperation(kind, { opId: 'op_1' }).catch((error: unknown) => error);
    clock.now = () => NOW + 6_000;
    const after = await runOperation(kind, { opId: 'op_1' });
    // Assess
    expect(whileHeld).toMatchObject({ status: 409, headers: { 'Retry-After': '5' } });
    expect(after).toBe('recorded called op_1');
    expect(calls).toEqual([{ id: 'op_1', retried: true }]);
  });

  it('lets the reconciler take over an operation whose lease ended, and only once', async () => {
    // Prepare
    item.op = { id: 'op_dead', kind: 'capture', lease_until: NOW - 1 };
    const reconcile = { ...kind, record: async (result: string) => `recorded ${result}` };
    // Act
    const [first, second] = await Promise.all([
      takeOverOperation(reconcile, { opId: 'op_dead' }),
      takeOverOperation(reconcile, { opId: 'op_dead' }).catch((error: unknown) => error),
    ]);
    // Assess
    expect(first).toBe('recorded called op_dead');
    expect(second).toMatchObject({ status: 409 });
    expect(calls).toEqual([{ id: 'op_dead', retried: true }]);
    expect(item.op).toMatchObject({ id: 'op_dead', lease_until: NOW + LEASE_MS });
  });

  it('answers what the kind says when its begin is refused (another run moved first), and calls nothing', async () => {
    // Prepare: the begin loses to a run that began between the read and the write
    const racing = { ...kind, held: () => undefined, onRefused: async () => 'moved meanwhile' };
    item.op = { id: 'op_racer', kind: 'capture', lease_until: NOW + LEASE_MS };
    // Act
    const answer = await runOperation(racing, { opId: 'op_1' });
    const byDefault = await runOperation({ ...racing, onRefused: undefined }, { opId: 'op_1' }).catch((error: unknown) => error);
    // Assess
    expect(answer).toBe('moved meanwhile');
    expect(byDefault).toMatchObject({ status: 409, code: 'operation_in_progress' });
    expect(calls).toEqual([]);
  });
});
