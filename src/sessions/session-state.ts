/**
 * The states of an agent session: `init` (being created), `active`, `warning` (80% of a
 * budget used), `paused` (resumable), and the final `completed`, `failed`, `timeout`,
 * `budget_exceeded`.
 *
 * `init` is the session engine's "session created" state, and here it is the state of a session before its
 * first event, `session.started`, is stored. That event is what creates the session (a session is
 * its stream), and the session object is built from it, `active`, in the same call: no handle
 * (`engine.startSession()`, `engine.restore()`, the MCP tools) ever observes a session in `init`,
 * and no event moves a session into it (a stream that does is corrupt). The state stays in the
 * type because the original design's enum has it and a checkpoint may name it.
 *
 * @example
 * ```ts
 * import type { SessionState } from '@tot/core/sessions';
 *
 * const open = (s: SessionState) => s === 'active' || s === 'warning';
 * ```
 */
export type SessionState = 'init' | 'active' | 'warning' | 'paused' | 'completed' | 'failed' | 'timeout' | 'budget_exceeded';

/**
 * The session states that end a session: nothing more can be written to it.
 *
 * @example
 * ```ts
 * import { FINAL_SESSION_STATES } from '@tot/core/sessions';
 *
 * FINAL_SESSION_STATES.includes('timeout'); // true
 * ```
 */
export const FINAL_SESSION_STATES: readonly SessionState[] = Object.freeze(['completed', 'failed', 'timeout', 'budget_exceeded']);

/**
 * @internal The session's state machine, as the session's operations move it (the states each
 * state may go to):
 * - `init` → `active` is the start itself (`session.started`), not an event: see {@link SessionState}.
 * - `active` → `warning` (a write that brings a budget to 80%), `paused`, and the ends.
 * - `warning` → `paused` and the ends (it never goes back to `active`: the budget stays used).
 * - `paused` → `active` or `warning` (`resume()`, by the budget used), `completed`, `failed`, and
 *   `timeout` (a `resume()`, `complete()` or `fail()` past `maxMs`); it takes no thought, so it
 *   never reaches `budget_exceeded`.
 * - the final states → nothing.
 *
 * Folding a stream checks every `session.state_changed` against it.
 *
 * @example
 * ```ts
 * SESSION_TRANSITIONS.paused.includes('active'); // true
 * ```
 */
export const SESSION_TRANSITIONS: Readonly<Record<SessionState, readonly SessionState[]>> = Object.freeze({
  init: Object.freeze([]),
  active: Object.freeze(['warning', 'paused', 'completed', 'failed', 'timeout', 'budget_exceeded']),
  warning: Object.freeze(['paused', 'completed', 'failed', 'timeout', 'budget_exceeded']),
  paused: Object.freeze(['active', 'warning', 'completed', 'failed', 'timeout']),
  completed: Object.freeze([]),
  failed: Object.freeze([]),
  timeout: Object.freeze([]),
  budget_exceeded: Object.freeze([]),
} satisfies Record<SessionState, readonly SessionState[]>);

/** Whether a session in `state` takes new work. */
export const isWritable = (state: SessionState): boolean => state === 'active' || state === 'warning';
