import { TotError } from '../errors/index.js';
import { linkedController, raceAbort, throwIfAborted } from '../internal/abort.js';
import { parseOptions } from '../internal/validate.js';
import { generateRequestSchema, generateResultSchema, isLanguageModel } from './schemas.js';
import type { CallOptions, GenerateRequest, GenerateResult, LanguageModel, Usage } from './types.js';

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
export async function callModel(model: LanguageModel, request: GenerateRequest, options: CallOptions = {}): Promise<GenerateResult> {
  if (!isLanguageModel(model)) {
    throw new TotError('INVALID_ARGUMENT', 'callModel: model: expected a LanguageModel ({ modelId, generate })', {
      details: { field: 'model' },
    });
  }
  const valid = isPlainRequest(request) ? request : (parseOptions(generateRequestSchema, request, 'callModel', 'request') as GenerateRequest);
  const { signal } = options;
  throwIfAborted(signal, 'model call');
  const n = valid.n ?? 1;
  if (n > 1 && model.capabilities?.multipleOutputs !== true) return emulateN(model, valid, n, signal);
  return callOnce(model, valid, n, signal);
}

const ROLES = new Set(['system', 'user', 'assistant']);

/**
 * The common request shape, checked inline: every primitive's model calls pass here, and a zod
 * parse per call would cost more than the rest of the call's framework work. Anything unusual
 * goes through the schema, which names the offending field.
 */
function isPlainRequest(r: GenerateRequest): boolean {
  if (typeof r !== 'object' || r === null || !Array.isArray(r.messages) || r.messages.length === 0) return false;
  for (const m of r.messages) {
    if (typeof m !== 'object' || m === null || typeof m.content !== 'string' || !ROLES.has(m.role)) return false;
  }
  const { n, temperature, maxOutputTokens, stop, seed, responseFormat, tags } = r;
  return (
    (n === undefined || (Number.isSafeInteger(n) && n > 0)) &&
    (temperature === undefined || (Number.isFinite(temperature) && temperature >= 0)) &&
    (maxOutputTokens === undefined || (Number.isSafeInteger(maxOutputTokens) && maxOutputTokens > 0)) &&
    stop === undefined &&
    (seed === undefined || Number.isSafeInteger(seed)) &&
    (responseFormat === undefined || responseFormat.type === 'text' || (responseFormat.type === 'json' && Object.keys(responseFormat).every((k) => k === 'type' || k === 'schema'))) &&
    (tags === undefined || (typeof tags === 'object' && tags !== null && Object.values(tags).every((v) => typeof v === 'string')))
  );
}

const FINISH_REASONS = new Set(['stop', 'length', 'content-filter', 'error', 'other']);
const isCount = (v: unknown) => v === undefined || (Number.isSafeInteger(v) && (v as number) >= 0);

/** The common, valid result shape checked inline, like {@link isPlainRequest}; the schema names what is wrong otherwise. */
function isPlainResult(r: GenerateResult): boolean {
  if (typeof r !== 'object' || r === null || !Array.isArray(r.outputs) || typeof r.usage !== 'object' || r.usage === null || Array.isArray(r.usage)) return false;
  for (const output of r.outputs) if (typeof output !== 'string') return false;
  return (
    isCount(r.usage.inputTokens) &&
    isCount(r.usage.outputTokens) &&
    (r.finishReason === undefined || FINISH_REASONS.has(r.finishReason)) &&
    (r.cacheHit === undefined || typeof r.cacheHit === 'boolean')
  );
}

async function callOnce(model: LanguageModel, request: GenerateRequest, n: number, signal: AbortSignal | undefined): Promise<GenerateResult> {
  let result: GenerateResult;
  try {
    result = await raceAbort(Promise.resolve().then(() => model.generate(request, { signal })), signal, 'model call');
  } catch (error) {
    if (TotError.isInstance(error)) throw error;
    if (signal?.aborted) throw new TotError('ABORTED', 'The model call was aborted.', { cause: error });
    const reason = error instanceof Error ? error.message : String(error);
    throw new TotError('GENERATION_FAILED', `Model "${model.modelId}" failed: ${reason}`, { cause: error });
  }
  const checked = isPlainResult(result) ? undefined : generateResultSchema.safeParse(result);
  if (checked && !checked.success) {
    throw new TotError('GENERATION_FAILED', `Model "${model.modelId}" returned a malformed result: ${checked.error.issues[0]?.message}`, {
      details: { modelId: model.modelId, modelResult: result, issues: checked.error.issues },
    });
  }
  if (result.outputs.length !== n) {
    throw new TotError('GENERATION_FAILED', `Model "${model.modelId}" returned ${result.outputs.length} outputs for n=${n}.`, {
      details: { modelId: model.modelId, modelResult: result },
    });
  }
  return result;
}

async function emulateN(model: LanguageModel, request: GenerateRequest, n: number, signal: AbortSignal | undefined): Promise<GenerateResult> {
  // One failed sample fails the batch, so the others are cancelled rather than left running.
  const { controller, release } = linkedController([signal]);
  try {
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        callOnce(model, { ...request, n: 1, tags: { ...request.tags, [SAMPLE_INDEX_TAG]: String(i) } }, 1, controller.signal).catch(
          (error: unknown) => {
            controller.abort(error);
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
    release();
  }
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
  const finish = results.find((r) => r.finishReason !== undefined && r.finishReason !== 'stop')?.finishReason ?? results[0]?.finishReason;
  if (finish !== undefined) merged.finishReason = finish;
  if (results.every((r) => r.cacheHit === true)) merged.cacheHit = true;
  merged.raw = results.map((r) => r.raw);
  return merged;
}
