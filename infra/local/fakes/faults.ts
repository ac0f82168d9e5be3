import type { IncomingMessage } from 'node:http';
import type { FakeFault, FakeOperation } from './types.ts';

/**
 * The faults a test injected into a fake (`FakeServer.inject`), each met by one call of its operation in the order
 * injected, and the answers they hold back.
 */
export class Faults {
  private readonly queues = new Map<FakeOperation, FakeFault[]>();
  private readonly heldAnswers = new Set<NodeJS.Timeout>();

  /** The next `times` calls of `operation` meet `fault`. */
  inject(operation: FakeOperation, fault: FakeFault, times = 1): void {
    this.queues.set(operation, [...(this.queues.get(operation) ?? []), ...Array.from({ length: times }, () => fault)]);
  }

  clear(): void {
    this.queues.clear();
  }

  /** The fault this call of `operation` meets, if any. */
  take(operation: FakeOperation): FakeFault | undefined {
    return this.queues.get(operation)?.shift();
  }

  /** Sends the answer of a call carried out as its fault says: never (the connection is dropped), after `ms`, or now. */
  deliver(fault: FakeFault | undefined, req: IncomingMessage, send: () => void): void {
    if (fault?.kind === 'accept_then_drop') return void req.socket.destroy();
    if (fault?.kind === 'slow') {
      const timer = setTimeout(() => {
        this.heldAnswers.delete(timer);
        send();
      }, fault.ms);
      this.heldAnswers.add(timer);
      return;
    }
    send();
  }

  /** Drops the answers still held back (the fake is closing). */
  dropHeldAnswers(): void {
    for (const timer of this.heldAnswers) clearTimeout(timer);
    this.heldAnswers.clear();
  }
}
