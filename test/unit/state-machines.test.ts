import { describe, expect, it } from 'vitest';
import { InvalidState } from '../../shared/model/errors.ts';
import { EVENT_TYPES } from '../../shared/model/events.ts';
import { allows, MACHINES, type StateMachine, transition } from '../../shared/model/state-machines.ts';

const machines = Object.entries(MACHINES).map(([entity, { table, states, initial }]) => ({
  entity,
  table: table as StateMachine<string, string>,
  states: states as readonly string[],
  initial: initial as readonly string[],
}));

describe.each(machines)('the $entity state machine', ({ entity, table, states, initial }) => {
  const moves = Object.entries(table);

  it('moves only between its own states, from at least one state each, without repeats', () => {
    expect(new Set(states).size).toBe(states.length);
    for (const [, move] of moves) {
      expect(move.from.length).toBeGreaterThan(0);
      expect(new Set(move.from).size).toBe(move.from.length);
      expect(states).toEqual(expect.arrayContaining([...move.from, move.to]));
    }
    expect(states).toEqual(expect.arrayContaining([...initial]));
  });

  it('emits only known events', () => {
    for (const [, move] of moves) if (move.event) expect(EVENT_TYPES).toContain(move.event);
  });

  it('reaches every state: each is one it is created in or one a move leads to', () => {
    const reached = new Set([...initial, ...moves.map(([, move]) => move.to)]);
    expect([...reached].sort()).toEqual([...states].sort());
  });

  it('allows an operation from exactly its from-states, and says why otherwise', () => {
    for (const [operation, move] of moves) {
      for (const state of states) {
        const allowed = move.from.includes(state);
        expect(allows(table, operation, state)).toBe(allowed);
        if (allowed) expect(transition(entity, table, operation, state)).toBe(move);
        else expect(() => transition(entity, table, operation, state)).toThrow(InvalidState);
      }
    }
  });
});

describe('transition', () => {
  it('names the state, the entity and the operation when it refuses', () => {
    const { table } = MACHINES.settlement;
    expect(() => transition('settlement', table, 'pay', 'paid')).toThrow('a paid settlement cannot be paid');
    expect(() => transition('test clock', MACHINES.test_clock.table, 'advance', 'advancing')).toThrow('an advancing test clock cannot be advanced');
  });
});
