import type { ErrorLocation, TotErrorCode } from '../errors/index.js';
import type { Question } from './question.js';
import type { StopDetail } from './stop-detail.js';

/**
 * An error recorded where it happened during a run (a node, a frame, a thought, a phase) that
 * the run survived. With `strict: true` the first one rejects the run instead.
 *
 * @example
 * ```ts
 * import type { RunError } from '@tot/core';
 *
 * const line = (e: RunError) => `${e.code} at ${e.where?.kind ?? 'run'}: ${e.message}`;
 * ```
 */
export interface RunError {
  code: TotErrorCode;
  message: string;
  where?: ErrorLocation;
  /** The original error (not recorded in a store; a replayed result has none). */
  cause?: unknown;
}

/**
 * Counters every runner's `stats` has.
 *
 * @example
 * ```ts
 * import type { RunStats } from '@tot/core';
 *
 * const tokens = (s: RunStats) => s.inputTokens + s.outputTokens;
 * ```
 */
export interface RunStats {
  /** Model calls made through the run (started, whatever their outcome), plus calls a resume served from the log. */
  llmCalls: number;
  /** Model calls that failed or were cancelled. */
  failedCalls: number;
  /** Attempts `withRetry` repeated inside the run's calls. */
  retries: number;
  /** Calls a resumed run served from its log instead of making them again (counted in `llmCalls`). */
  resumedCalls: number;
  /** Tokens of completed calls: as reported, or estimated where a call did not report them (see `estimatedCalls`). */
  inputTokens: number;
  outputTokens: number;
  /** Completed calls whose usage was (partly) estimated. */
  estimatedCalls: number;
  /** Calls answered from a cache (`withCache`). */
  cacheHits: number;
  /** Cost from the run budget's `pricing`; absent without pricing. */
  costUsd?: number;
  wallMs: number;
}

/**
 * The fields every runner's result has.
 *
 * @example
 * ```ts
 * import type { RunResult } from '@tot/core';
 *
 * function summary(r: RunResult) {
 *   return `${r.runId}: ${r.stopReason}, ${r.errors.length} errors, ${r.stats.llmCalls} calls`;
 * }
 * ```
 */
export interface RunResult<S extends string = string, T extends RunStats = RunStats> {
  runId: string;
  stopReason: S;
  /** Why the run stopped, as data, when a limit stopped it. */
  detail?: StopDetail;
  errors: RunError[];
  stats: T;
  /** With `stopReason: 'waiting'`: the questions the run waits for, in the order asked. Answer them by `id` with `resume({ answers })`. */
  pending?: Question[];
}
