import type { BudgetLimitName } from '../budget/budget.js';

/**
 * The stop reasons every runner shares. Each runner's `stopReason` union adds its own
 * (`solution_found`, `max_thoughts`, `degraded`, …).
 *
 * - `completed`: the work ended normally.
 * - `budget_exceeded`: the budget refused a call or its deadline passed.
 * - `timeout`: the run's own `timeoutMs` passed.
 * - `aborted`: the caller's signal fired (the run rejects with `ABORTED`).
 * - `error`: every model call failed, or the run failed (see `errors`).
 * - `waiting`: the run asked a question nobody in the process could answer; it is recorded, and
 *   `resume({ store, runId, answers })` goes on (the questions are in the result's `pending`).
 *
 * @example
 * ```ts
 * import type { SharedStopReason } from '@tot/core';
 *
 * const partial = (r: SharedStopReason) => r === 'budget_exceeded' || r === 'timeout';
 * ```
 */
export type SharedStopReason = 'completed' | 'budget_exceeded' | 'timeout' | 'aborted' | 'error' | 'waiting';

/**
 * Why a run (or one frame of it) stopped, as data: match on `kind`, never on a message.
 *
 * @example
 * ```ts
 * import type { StopDetail } from '@tot/core';
 *
 * function explain(d: StopDetail): string {
 *   switch (d.kind) {
 *     case 'budget': return `the ${d.limit} budget ran out`;
 *     case 'steps': return `${d.limit} steps`;
 *     case 'time': return `${d.limitMs} ms`;
 *     default: return d.kind;
 *   }
 * }
 * ```
 */
export type StopDetail =
  | { kind: 'budget'; limit: BudgetLimitName | 'branches' }
  | { kind: 'time'; limitMs: number }
  | { kind: 'steps'; limit: number }
  | { kind: 'depth'; limit: number }
  | { kind: 'loop'; frameId: string; goal: string; repeats: number }
  | { kind: 'thoughts'; limit: number }
  | { kind: 'states'; limit: number }
  | { kind: 'iterations'; limit: number }
  | { kind: 'aborted'; reason?: string }
  | { kind: 'error'; code: string; message: string }
  /** The ids of the questions the run waits for. */
  | { kind: 'waiting'; questions: string[] };
