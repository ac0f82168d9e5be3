import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Declined, NotFound, OperationInProgress } from '../../shared/model/errors.ts';
import { invoked, invokeFunction } from '../../shared/invoke.ts';
import { useLocalInvoker } from '../../shared/local-invoker.ts';
import { fakeContext } from '../support/lambda.ts';

/*
 * A private function invoked by a public page (shared/invoke.ts), run in process as the local runtime runs it: what
 * the page gets back is what the function answered or threw, as the page showed it before the split.
 */

const Input = v.object({ id: v.string(), card: v.optional(v.object({ number: v.pipe(v.string(), v.regex(/^\d{13,19}$/)) })) });
type Input = v.InferOutput<typeof Input>;

/** Registers `run` as the private function `private/test`, behind its schema, as the local runtime does. */
function privateFunction(run: (input: Input) => Promise<unknown>) {
  const handler = invoked(Input, run);
  useLocalInvoker(async (name, payload) => {
    expect(name).toBe('private/test');
    return handler(payload, fakeContext({ name }));
  });
}
afterEach(() => vi.restoreAllMocks());

describe('invokeFunction()', () => {
  it("answers the private function's value as JSON carries it", async () => {
    // Prepare
    privateFunction(async ({ id }) => ({ id, at: new Date(0), nothing: undefined }));
    // Act
    const answer = await invokeFunction('private/test', { id: 'inv_1' });
    // Assess
    expect(answer).toEqual({ id: 'inv_1', at: '1970-01-01T00:00:00.000Z' });
  });

  it('throws a domain error of the private function as its own class, with its status, code, details and headers', async () => {
    // Prepare
    const thrown = [new Declined('insufficient_funds', 'pay_1'), new NotFound('no payment pay_1'), new OperationInProgress(3)];
    for (const error of thrown) {
      privateFunction(async () => {
        throw error;
      });
      // Act
      const caught = await invokeFunction('private/test', { id: 'x' }).catch((e: unknown) => e);
      // Assess
      expect(caught).toBeInstanceOf(error.constructor);
      expect(caught).toMatchObject({
        name: error.name,
        message: error.message,
        status: error.status,
        code: error.code,
        details: error.details,
        headers: error.headers,
        nothingCommitted: error.nothingCommitted,
      });
    }
  });

  it('fails on a payload its schema refuses, naming where and never what (a typed card stays out of the error and logs)', async () => {
    // Prepare
    const run = vi.fn(async () => 'ran');
    privateFunction(run);
    const written: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void written.push(args.join(' ')));
    }
    // Act
    const caught = (await invokeFunction('private/test', { id: 'x', card: { number: '4242 4242 4242 4242 x' } }).catch((e: unknown) => e)) as Error;
    // Assess
    expect(run).not.toHaveBeenCalled();
    expect(caught.message).toBe('Invalid invocation payload at card.number');
    expect(written.join('\n')).toContain('Invalid invocation payload at card.number');
    expect(written.join('\n')).not.toContain('4242');
  });
});
