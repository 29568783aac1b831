import { z } from 'zod';
import { Budget } from '../budget/budget.js';
import { chargedUsage, estimateRequestTokens } from '../budget/estimate-tokens.js';
import { TotError } from '../errors/index.js';
import { abortable, abortedError, linkSignals, throwIfAborted } from '../internal/abort.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { languageModelSchema } from './schemas.js';
import type { CallOptions, GenerateRequest, GenerateResult, LanguageModel } from './types.js';
import { ADMITTED_BY, ADMITTING_BUDGETS, admittingBudgets, wrapModel } from './wrap-model.js';

/**
 * Options of {@link withBudget}.
 *
 * @example
 * ```ts
 * import { Budget, type BudgetModelOptions } from '@tot/core';
 *
 * const options: BudgetModelOptions = { budget: new Budget({ maxTotalTokens: 50_000 }), outputTokensPerCall: 512 };
 * ```
 */
export interface BudgetModelOptions {
  budget: Budget;
  /**
   * Input tokens reserved for a request. Default {@link estimateRequestTokens} (characters / 3,
   * which errs high on English prose but not on every text). Give it the provider's tokenizer to
   * make token limits exact (see {@link withBudget}).
   */
  estimateInputTokens?: (request: GenerateRequest) => number;
  /**
   * Output cap given to a request that has no `maxOutputTokens` when the budget limits output
   * tokens, total tokens or cost (a hard limit needs every call to be capped). Default 1024.
   */
  outputTokensPerCall?: number;
}

const DEFAULT_OUTPUT_TOKENS_PER_CALL = 1024;

/** The options, strict: the middleware form checks them when it is made. */
export const optionsSchema = z.strictObject({
  budget: z.instanceof(Budget, { message: 'expected a Budget' }),
  estimateInputTokens: fnSchema<(request: GenerateRequest) => number>().optional(),
  outputTokensPerCall: z.number().int().positive().default(DEFAULT_OUTPUT_TOKENS_PER_CALL),
});

/** A call admitted by a budget: the request to send (with its output cap) and how to settle it. */
export interface Admission {
  request: GenerateRequest;
  /** Charges the call: its result's usage (estimated where it is not reported or malformed), or a call with no tokens for a failure. */
  settle(result: GenerateResult | undefined): void;
  /** Frees the reservation of a call that never started. */
  release(): void;
}

/**
 * Admits one call through `budget` (the one admission mechanism: `withBudget` and a run both use
 * it): reserves a call, the estimated input tokens and the output cap, or throws `BUDGET_EXCEEDED`.
 */
export function admitCall(budget: Budget, request: GenerateRequest, o: { estimateInputTokens?: ((request: GenerateRequest) => number) | undefined; outputTokensPerCall?: number | undefined } = {}): Admission {
  const limits = budget.snapshot().limits;
  const boundsOutput = limits.maxOutputTokens !== undefined || limits.maxTotalTokens !== undefined || limits.maxCost !== undefined;
  const n = request.n ?? 1;
  const cap = request.maxOutputTokens ?? (boundsOutput ? (o.outputTokensPerCall ?? DEFAULT_OUTPUT_TOKENS_PER_CALL) : undefined);
  const inputTokens = (o.estimateInputTokens ?? estimateRequestTokens)(request);
  const hold = budget.reserve({ calls: 1, inputTokens, outputTokens: (cap ?? 0) * n });
  const sent = cap === undefined || cap === request.maxOutputTokens ? request : { ...request, maxOutputTokens: cap };
  return {
    request: sent,
    settle(result) {
      // A model answered (even with a malformed result): charged what it reported, estimated where
      // that is missing or not a token count, so a bad report can never uncount the call.
      const charged = result === undefined ? { inputTokens: 0, outputTokens: 0 } : chargedUsage(sent, result);
      hold.settle({ calls: 1, inputTokens: charged.inputTokens, outputTokens: charged.outputTokens });
    },
    release: () => hold.release(),
  };
}

/**
 * Admits each call through `budget` before it starts (reserving its calls, estimated input tokens
 * and output cap) and settles the reservation afterwards with the reported usage, or for a figure
 * the model did not report or reported malformed (not a non-negative integer), the same estimate
 * a `UsageMeter` uses ({@link chargedUsage}). A failed call counts as a call with no tokens. A
 * call that does not fit is refused with `BUDGET_EXCEEDED` and never reaches the provider; calls
 * in flight when the deadline passes are cancelled with `BUDGET_EXCEEDED`, and a call whose
 * signal aborts ends with `ABORTED` at once, even if the model ignores the signal.
 *
 * What that guarantees: the call limit is exact (a call is made only once admitted, and every
 * admitted call counts, whatever its result reports). Token and cost limits hold on what calls
 * reserve: usage passes such a limit only by what admitted calls used beyond their reservation
 * (an input longer than `estimateInputTokens` said, a provider that ignores `maxOutputTokens`),
 * and once it has, no call is admitted. With an exact `estimateInputTokens` (the provider's
 * tokenizer) and a provider that honours `maxOutputTokens`, they are never passed.
 *
 * Put it innermost (closest to the provider), inside {@link withRetry} and {@link withCache}, so
 * that each real attempt is admitted and cache hits cost nothing. A runner given the same budget
 * recognises the model and does not admit its calls a second time; a model that already admits
 * through `budget` is returned as it is. Different budgets nest: each is charged.
 *
 * @example
 * ```ts
 * import { Budget, withBudget, withRetry } from '@tot/core';
 *
 * const budget = new Budget({ maxCalls: 50, maxTotalTokens: 100_000 });
 * const model = withRetry(withBudget(provider, { budget }));
 * ```
 */
export function withBudget(model: LanguageModel, options: BudgetModelOptions): LanguageModel {
  parseOptions(languageModelSchema, model, 'withBudget', 'model');
  const o = parseOptions(optionsSchema, options, 'withBudget');
  const { budget } = o;
  // Already admitted through this budget further in: a second admission would charge each call twice.
  if (admittingBudgets(model).has(budget)) return model;
  const wrapped = wrapModel(model, async (request, callOptions: CallOptions = {}) => {
    const userSignal = callOptions.signal;
    throwIfAborted(userSignal, 'model call');
    // A run that admitted this call through the same budget already holds its reservation.
    if ((callOptions as { [ADMITTED_BY]?: ReadonlySet<object> })[ADMITTED_BY]?.has(budget)) return abortable(userSignal, () => model.generate(request, callOptions), 'model call');
    const admission = admitCall(budget, request, o);
    const deadline = budget.deadline === undefined ? undefined : budget.signal;
    const { signal, unlink } = linkSignals(userSignal, deadline);
    let started = false;
    try {
      const result = await abortable(
        signal,
        () => {
          started = true;
          return model.generate(admission.request, { ...callOptions, signal });
        },
        'model call',
      );
      admission.settle(result);
      return result;
    } catch (error) {
      // A call the deadline stopped before it started was never made.
      if (started) admission.settle(undefined);
      else admission.release();
      if (deadline?.aborted && !userSignal?.aborted) throw abortedError(deadline, 'model call');
      if (userSignal?.aborted && !TotError.isInstance(error)) throw abortedError(userSignal, 'model call');
      throw error;
    } finally {
      unlink();
    }
  });
  Object.defineProperty(wrapped, ADMITTING_BUDGETS, { value: new Set([...admittingBudgets(model), budget]), enumerable: false });
  return wrapped;
}
