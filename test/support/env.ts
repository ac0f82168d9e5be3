/**
 * Vitest setup file (runs in each test worker before the test module is imported): puts the local services'
 * environment into process.env, so handler modules (shared/config.ts reads env at import) see it.
 */
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { useLocalInvoker } from '../../shared/local-invoker.ts';
import { captureOutput, markRunning } from './leak-capture.ts';

Object.assign(process.env, inject('localEnv'));
// A public function's private one (catalog trigger `invoke`) runs in this process, as the local runtime runs it. The
// catalog and the handlers are imported at the first call: a test file may still set its environment before then.
useLocalInvoker(async (name, payload) => (await import('../../infra/local/private-functions.ts')).runPrivateFunction(name, payload));

// What the file prints, and that it runs, for the leak scan after the suite (test/card-scan).
const { dir } = inject('leakCapture');
captureOutput(dir);
let done = () => {};
beforeAll(() => void (done = markRunning(dir, expect.getState().testPath ?? `a test file of worker ${process.pid}`)));
afterAll(() => done());
