import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { linkSignals, raceAbort, throwIfAborted } from '../internal/abort.js';
import { compileFastCheck } from '../internal/fast-check.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import { generateRequestSchema, generateResultSchema, isLanguageModel } from './schemas.js';
import type { CallOptions, FinishReason, GenerateRequest, GenerateResult, LanguageModel, Usage } from './types.js';
import { CHECKED_CALL, type CheckedCall, SETTLES_ON_ABORT } from './wrap-model.js';

/**
 * The tag that {@link callModel} puts on each sub-request when it emulates `n > 1`, so that
 * caches and cassettes keep the samples apart.
 *
 * @example
 * ```ts
 * import { SAMPLE_INDEX_TAG } from '@tot/core';
 *
 * SAMPLE_INDEX_TAG; // 'sampleIndex'
 * ```
 */
export const SAMPLE_INDEX_TAG = 'sampleIndex';

/**
 * Calls a model the way every primitive of the library does: the request is validated, `n > 1`
 * is emulated with parallel calls when the model lacks `capabilities.multipleOutputs`, the call
 * settles as soon as `signal` aborts (even if the model ignores it), and every failure is a
 * {@link TotError} (`ABORTED`, or `GENERATION_FAILED` wrapping the provider's error).
 *
 * Use it in custom roles instead of `model.generate` to get the same guarantees.
 *
 * @example
 * ```ts
 * import { callModel, fromFunction } from '@tot/core';
 *
 * const model = fromFunction(async (prompt) => `echo: ${prompt}`);
 * const { outputs } = await callModel(model, { messages: [{ role: 'user', content: 'hi' }], n: 2 });
 * // outputs: ['echo: hi', 'echo: hi'] (two parallel calls)
 * ```
 */
export function callModel(model: LanguageModel, request: GenerateRequest, options: CallOptions = {}): Promise<GenerateResult> {
  try {
    if (!isLanguageModel(model)) {
      throw new TotError('INVALID_ARGUMENT', 'callModel: model: expected a LanguageModel ({ modelId, generate })', {
        details: { field: 'model' },
      });
    }
    const valid = checkedRequest(request, 'callModel');
    if (!isValidCallOptions(options)) parseOptions(callOptionsSchema, options, 'callModel');
    throwIfAborted(options.signal, 'model call');
    const n = valid.n ?? 1;
    if (n > 1 && model.capabilities?.multipleOutputs !== true) return emulateN(model, valid, n, options);
    return callOnce(model, valid, n, options);
  } catch (error) {
    return Promise.reject(error);
  }
}

const callOptionsSchema = z.strictObject({ signal: signalSchema, onRetry: fnSchema<NonNullable<CallOptions['onRetry']>>().optional() });

// Compiled from the schemas (see fast-check.ts): a valid request or result is used as it is.
const isValidCallOptions = compileFastCheck(callOptionsSchema) ?? (() => false);
const isValidRequest = compileFastCheck(generateRequestSchema) ?? (() => false);
const isValidResult = compileFastCheck(generateResultSchema) ?? (() => false);

/** `request` when it is a valid request, else `INVALID_ARGUMENT` naming the field for `where`. */
export function checkedRequest(request: GenerateRequest, where: string): GenerateRequest {
  return isValidRequest(request) ? request : (parseOptions(generateRequestSchema, request, where, 'request') as GenerateRequest);
}

/** Whether `result` is one {@link checkedResult} accepts: a valid result with `n` outputs. */
export function isWellFormedResult(result: unknown, n: number): result is GenerateResult {
  return (isValidResult(result) || generateResultSchema.safeParse(result).success) && (result as GenerateResult).outputs.length === n;
}

/**
 * The model's result, checked against the result schema and the number of outputs asked for, or
 * `GENERATION_FAILED` naming what is wrong. Shared by every path that reads a model's result.
 */
export function checkedResult(modelId: string, result: GenerateResult, n: number): GenerateResult {
  const checked = isValidResult(result) ? undefined : generateResultSchema.safeParse(result);
  if (checked && !checked.success) {
    throw new TotError('GENERATION_FAILED', `Model "${modelId}" returned a malformed result: ${checked.error.issues[0]?.message}`, {
      details: { modelId, modelResult: result, issues: checked.error.issues },
    });
  }
  if (result.outputs.length !== n) {
    throw new TotError('GENERATION_FAILED', `Model "${modelId}" returned ${result.outputs.length} outputs for n=${n}.`, {
      details: { modelId, modelResult: result },
    });
  }
  return result;
}

// A promise chain rather than an async function: every model call of every runner passes here,
// and the async frame was a measurable share of a call's allocations (the Game of 24 replay benchmark).
function callOnce(model: LanguageModel, request: GenerateRequest, n: number, options: CallOptions): Promise<GenerateResult> {
  // A run's model checks the result and types the error itself: no second check, no extra promise.
  const checked = (model as { [CHECKED_CALL]?: CheckedCall })[CHECKED_CALL];
  if (checked !== undefined) return checked(request, options);
  const { signal } = options;
  let pending: Promise<GenerateResult>;
  try {
    pending = Promise.resolve(model.generate(request, options));
  } catch (error) {
    pending = Promise.reject(error);
  }
  // A model that settles on abort by itself (a run's) is not raced a second time.
  if ((model as { [SETTLES_ON_ABORT]?: boolean })[SETTLES_ON_ABORT] !== true) pending = raceAbort(pending, signal, 'model call');
  return pending.then(
    (result) => checkedResult(model.modelId, result, n),
    (error: unknown) => {
      throw callError(model.modelId, error, signal);
    },
  );
}

/** What a failed call rejects with: a `TotError` as it is, else `ABORTED` (the call's signal fired) or `GENERATION_FAILED`, the error as cause. */
export function callError(modelId: string, error: unknown, signal: AbortSignal | undefined): TotError {
  if (TotError.isInstance(error)) return error;
  if (signal?.aborted) return new TotError('ABORTED', 'The model call was aborted.', { cause: error });
  const reason = error instanceof Error ? error.message : String(error);
  return new TotError('GENERATION_FAILED', `Model "${modelId}" failed: ${reason}`, { cause: error });
}

async function emulateN(model: LanguageModel, request: GenerateRequest, n: number, options: CallOptions): Promise<GenerateResult> {
  const { signal } = options;
  // One failed sample fails the batch, so the others are cancelled rather than left running.
  const batch = new AbortController();
  const linked = linkSignals(batch.signal, signal);
  const samples = { ...options, signal: linked.signal };
  try {
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        callOnce(model, { ...request, n: 1, tags: { ...request.tags, [SAMPLE_INDEX_TAG]: String(i) } }, 1, samples).catch(
          (error: unknown) => {
            batch.abort(error);
            throw error;
          },
        ),
      ),
    );
    return mergeResults(results);
  } catch (error) {
    if (signal?.aborted) throw TotError.isInstance(error) && error.code === 'ABORTED' ? error : new TotError('ABORTED', 'The model call was aborted.', { cause: error });
    throw error;
  } finally {
    linked.unlink();
  }
}

/** One finish reason for several samples: the first that is not `stop` (a cut-short sample must show), else the first. */
export function mergedFinishReason(reasons: readonly (FinishReason | undefined)[]): FinishReason | undefined {
  return reasons.find((r) => r !== undefined && r !== 'stop') ?? reasons[0];
}

function sumKnown(values: (number | undefined)[]): number | undefined {
  let total = 0;
  for (const value of values) {
    if (value === undefined) return undefined;
    total += value;
  }
  return total;
}

function mergeResults(results: GenerateResult[]): GenerateResult {
  const usage: Usage = {};
  const inputTokens = sumKnown(results.map((r) => r.usage.inputTokens));
  const outputTokens = sumKnown(results.map((r) => r.usage.outputTokens));
  if (inputTokens !== undefined) usage.inputTokens = inputTokens;
  if (outputTokens !== undefined) usage.outputTokens = outputTokens;
  const merged: GenerateResult = { outputs: results.flatMap((r) => r.outputs), usage };
  const finish = mergedFinishReason(results.map((r) => r.finishReason));
  if (finish !== undefined) merged.finishReason = finish;
  if (results.every((r) => r.cacheHit === true)) merged.cacheHit = true;
  merged.raw = results.map((r) => r.raw);
  return merged;
}
