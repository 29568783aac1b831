/**
 * `@tot/core`: composable, provider-agnostic primitives for structured LLM reasoning. The root
 * entry holds the common path (models, budgets, structured output, thought trees, events, runs,
 * roles, the search and `solve()`); operation graphs, agent sessions, deliberation, fractal solving
 * and chain of thought have subpaths of their own (`@tot/core/graph`, `@tot/core/sessions`,
 * `@tot/core/deliberation`, `@tot/core/fractal`, `@tot/core/cot`).
 *
 * @packageDocumentation
 */
export * from './errors/index.js';
export * from './model/index.js';
export * from './budget/index.js';
export * from './structured/index.js';
// The Tree-of-Thoughts protocol stays here: a thought tree converts to and from it
// (`toProtocol`/`fromProtocol`) and `solve`'s protocol handler speaks it.
export * from './protocol/index.js';
export * from './tree/index.js';
export * from './events/index.js';
export * from './run/index.js';
export * from './roles/index.js';
// UCBScheduler stays here: it is the selection rule of `mcts`, and a custom strategy may use it.
export * from './scheduler/index.js';
export * from './search/index.js';
export * from './solve/index.js';
// The names of the session engine before 0.2.0, deprecated; they go in 0.3.0 (`@tot/core/sessions`
// has the engine under its new names).
export { GotEngine, GotSession, type GotBranch, type GotEngineOptions, type GotEventData, type GotEvidence, type GotThought } from './sessions/deprecated-names.js';
