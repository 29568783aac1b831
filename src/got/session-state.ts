/**
 * The states of a GoT session (seed 004): `init` (created), `active`, `warning` (80% of a budget
 * used), `paused` (resumable), and the final `completed`, `failed`, `timeout`, `budget_exceeded`.
 *
 * @example
 * ```ts
 * import type { SessionState } from '@tot/core';
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
 * import { FINAL_SESSION_STATES } from '@tot/core';
 *
 * FINAL_SESSION_STATES.includes('timeout'); // true
 * ```
 */
export const FINAL_SESSION_STATES: readonly SessionState[] = Object.freeze(['completed', 'failed', 'timeout', 'budget_exceeded']);

/** Whether a session in `state` takes new work. */
export const isWritable = (state: SessionState): boolean => state === 'active' || state === 'warning';
