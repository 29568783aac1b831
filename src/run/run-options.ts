import { z } from 'zod';
import { Budget, BudgetTemplate, type BudgetOptions } from '../budget/budget.js';
import type { EventStore } from '../events/store/types.js';
import { TotError } from '../errors/index.js';
import { fnSchema, nestedIssue, signalSchema } from '../internal/validate.js';
import type { RunEventBase } from './run-event.js';
import { answersSchema, onAskSchema, type Answers, type AskHandler } from './question.js';

/**
 * What a runner's `budget` option takes: a {@link Budget} (used as is, shared by every run it is
 * given to), a {@link BudgetTemplate} from `budget.perRun()`, or plain limits (each run gets a
 * budget with them).
 *
 * @example
 * ```ts
 * import type { RunBudget } from '@tot/core';
 *
 * const perRun: RunBudget = { maxCalls: 50, deadlineMs: 120_000 };
 * ```
 */
export type RunBudget = Budget | BudgetTemplate | BudgetOptions;

/**
 * Per-run options every runner's `run` takes.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore, type RunOptions } from '@tot/core';
 *
 * const options: RunOptions = { runId: 'essay-1', store: new InMemoryEventStore(), signal: AbortSignal.timeout(60_000) };
 * ```
 */
export interface RunOptions<E extends RunEventBase = RunEventBase> {
  signal?: AbortSignal;
  /** Default: a new time-ordered id (`run_…`). Give one to record or resume by a known id. */
  runId?: string;
  /** Record every event of the run, in order, to this store (the stream `runId`). */
  store?: EventStore;
  /** Called with every event of this run, in order. */
  onEvent?: (event: E) => void;
  /**
   * Answers the run's questions (`ask`) in process: a prompt, a test. Without it, a recorded run
   * that asks ends with `stopReason: 'waiting'`, and `resume({ answers })` goes on.
   */
  onAsk?: AskHandler;
}

/**
 * What every runner's `resume` takes, besides the runner's own options (which must be the ones
 * the run was recorded with).
 *
 * @example
 * ```ts
 * import type { ResumeOptions } from '@tot/core';
 *
 * const options: ResumeOptions = { store, runId: 'essay-1' };
 * ```
 */
export interface ResumeOptions<E extends RunEventBase = RunEventBase> {
  /** The store the run was recorded to. */
  store: EventStore;
  /** The id of the recorded run. */
  runId: string;
  /** Stops the resumed run: it rejects with `ABORTED` and the partial result. */
  signal?: AbortSignal;
  /** Called with every event of the run, in order: the log's events first, then those the resumed run adds (from `run.resumed` on). */
  onEvent?: (event: E) => void;
  /**
   * Answers to the questions a waiting run asked, by question id (the result's `pending[].id`).
   * Each is checked before anything is written (`INVALID_ARGUMENT` otherwise: the run stays
   * waiting as it was) and recorded; questions left unanswered keep the run waiting.
   */
  answers?: Answers;
  /** Answers the questions the resumed run asks in process (see `RunOptions.onAsk`). */
  onAsk?: AskHandler;
}

const storeSchema = z.custom<EventStore>(
  (v) => typeof v === 'object' && v !== null && typeof (v as EventStore).append === 'function' && typeof (v as EventStore).readStream === 'function',
  'expected an EventStore',
);

export const runOptionsShape = {
  signal: signalSchema,
  runId: z.string().min(1).max(200).optional(),
  store: storeSchema.optional(),
  // Typed for the widest event: each runner's options type narrows what users pass.
  onEvent: fnSchema<(event: RunEventBase) => void>().optional(),
  onAsk: onAskSchema,
};

export const resumeOptionsShape = {
  store: storeSchema,
  runId: z.string().min(1).max(200),
  signal: signalSchema,
  onEvent: fnSchema<(event: RunEventBase) => void>().optional(),
  answers: answersSchema,
  onAsk: onAskSchema,
};

/** The `budget` option of a runner: a `Budget` or a template as they are, plain limits as a template. */
const runBudgetSchema = z.unknown().transform((value, ctx): Budget | BudgetTemplate => {
  if (value instanceof Budget || value instanceof BudgetTemplate) return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    try {
      // Plain limits are checked by the Budget itself, once, here: a typo fails where it is written.
      return new BudgetTemplate(value as BudgetOptions);
    } catch (error) {
      if (!TotError.hasCode(error, 'INVALID_ARGUMENT')) throw error;
      ctx.issues.push(nestedIssue(error, value));
      return z.NEVER;
    }
  }
  ctx.issues.push({ code: 'custom', message: 'expected a Budget, budget.perRun(), or budget limits', input: value });
  return z.NEVER;
});

/** The budget of one run: a shared `Budget` as is, a fresh one from a template. */
export function budgetForRun(option: Budget | BudgetTemplate | undefined): Budget | undefined {
  if (option === undefined) return undefined;
  return option instanceof BudgetTemplate ? option.create() : option;
}

/** Runner-level options every runner takes. */
export const runnerOptionsShape = {
  budget: runBudgetSchema.optional(),
  timeoutMs: z.number().positive().max(2_147_483_647).optional(),
  strict: z.boolean().default(false),
  now: fnSchema<() => number>().optional(),
};

/** The runner-level options every runner takes, as {@link runnerOptionsShape} parses them. */
export type RunnerOptions = z.output<z.ZodObject<typeof runnerOptionsShape>>;
