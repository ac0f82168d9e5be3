/**
 * Vitest setup file (runs in each test worker before the test module is imported): puts the local services'
 * environment into process.env, so handler modules (shared/config.ts reads env at import) see it.
 */
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { captureOutput, markRunning } from './leak-capture.ts';

Object.assign(process.env, inject('localEnv'));
// a public function's private one (catalog trigger `invoke`) runs in this process, as the local runtime runs it
(await import('../../infra/local/private-functions.ts')).runPrivateFunctionsInProcess();

// What the file prints, and that it runs, for the leak scan after the suite (test/card-scan).
const { dir } = inject('leakCapture');
captureOutput(dir);
let done = () => {};
beforeAll(() => void (done = markRunning(dir, expect.getState().testPath ?? `a test file of worker ${process.pid}`)));
afterAll(() => done());
