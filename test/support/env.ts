/**
 * Vitest setup file (runs in each test worker before the test module is imported): puts the local services'
 * environment into process.env, so handler modules (shared/config.ts reads env at import) see it.
 */
import { inject } from 'vitest';

Object.assign(process.env, inject('localEnv'));
