/**
 * `@tot/core`: composable, provider-agnostic primitives for structured LLM reasoning.
 *
 * @packageDocumentation
 */
export * from './errors/index.js';
export * from './model/index.js';
export * from './budget/index.js';
export * from './structured/index.js';
export * from './protocol/index.js';
export * from './tree/index.js';
export * from './events/index.js';
export * from './run/index.js';
export * from './roles/index.js';
export * from './scheduler/index.js';
export * from './search/index.js';
export * from './solve/index.js';
export * from './cot/index.js';
export * from './fractal/index.js';
export * from './graph/index.js';
export * from './sessions/index.js';
export * from './deliberation/index.js';
