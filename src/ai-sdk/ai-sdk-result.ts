import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { compileFastCheck, compileSafeParse } from '../internal/fast-check.js';
import type { FinishReason, Usage } from '../model/types.js';

// A count the provider reported, or nothing. Versions differ in where counts sit, not in what they mean.
const count = z.number().nullish();

const content = z.array(z.object({ type: z.string(), text: z.unknown().optional() }).loose());
// v3 and v4 nest token counts (`inputTokens.total`) and give the finish reason as `{ unified, raw }`;
// v2 has flat counts and a string reason.
const finishV3 = z.object({ unified: z.string() }).loose();
const usageV3 = z.object({ inputTokens: z.object({ total: count }).loose(), outputTokens: z.object({ total: count }).loose() }).loose();
const usageV2 = z.object({ inputTokens: count, outputTokens: count }).loose();

const resultSchema = <F extends z.ZodType, U extends z.ZodType>(finishReason: F, usage: U) =>
  z.object({ content, finishReason: finishReason.optional(), usage: usage.optional(), structuredOutputText: z.string().optional() }).loose();

/**
 * The parts of a `doGenerate` result the adapter reads, for the three specification versions:
 * either form of each field is accepted whatever version the model declares.
 */
export const aiSdkGenerateResultSchema = resultSchema(z.union([z.string(), finishV3]), z.union([usageV3, usageV2]));

type AiSdkGenerateResult = z.output<typeof aiSdkGenerateResultSchema>;

/** A v3 or v4 result as providers write it: the fast path's shape (a narrowing of the schema above). */
export const generateResultV3Schema = resultSchema(finishV3, usageV3);

/** A v2 result as providers write it: likewise. */
export const generateResultV2Schema = resultSchema(z.string(), usageV2);

// The schema's unions have no literal to tell their options apart, so zod alone could read them;
// a result of either version's usual shape is valid under the schema as it is, without a copy.
const fastV3 = compileFastCheck(generateResultV3Schema);
const fastV2 = compileFastCheck(generateResultV2Schema);
const parseGenerateResult = (value: unknown): z.ZodSafeParseResult<AiSdkGenerateResult> =>
  fastV3?.(value) || fastV2?.(value) ? { success: true, data: value as AiSdkGenerateResult } : aiSdkGenerateResultSchema.safeParse(value);

/** The parts of a `doEmbed` result the adapter reads (the same in every version); the vectors' values are judged by `checkedEmbeddings`, which names what is wrong. */
export const aiSdkEmbedResultSchema = z.object({ embeddings: z.array(z.array(z.unknown())) }).loose();

const parseEmbedResult = compileSafeParse(aiSdkEmbedResultSchema);

/** `result` read as a `doGenerate` or `doEmbed` result, or `GENERATION_FAILED` (not retryable: the provider object, not the network, is at fault). */
export function checkedAiSdkResult(method: 'doGenerate', result: unknown, modelId: string): AiSdkGenerateResult;
export function checkedAiSdkResult(method: 'doEmbed', result: unknown, modelId: string): z.output<typeof aiSdkEmbedResultSchema>;
export function checkedAiSdkResult(method: 'doGenerate' | 'doEmbed', result: unknown, modelId: string): unknown {
  const checked = method === 'doGenerate' ? parseGenerateResult(result) : parseEmbedResult(result);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0]!;
  throw new TotError('GENERATION_FAILED', `Model "${modelId}": ${method} returned a result of no AI SDK specification version (${issue.path.join('.') || 'result'}: ${issue.message})`, {
    recoverable: false,
    details: { modelId, modelResult: result, issues: checked.error.issues, retryable: false },
  });
}

const FINISH_REASONS: Record<string, FinishReason | undefined> = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'content-filter',
  error: 'error',
  'tool-calls': 'other',
  // v4: the provider's stream ended without saying why; the output may be cut short.
  interrupted: 'other',
  other: 'other',
  // v2: the provider did not say.
  unknown: undefined,
};

/** The library's finish reason for a spec's (`'length'` or `{ unified: 'length', raw }`). */
export function finishReasonOf(reason: AiSdkGenerateResult['finishReason']): FinishReason | undefined {
  const unified = typeof reason === 'string' ? reason : reason?.unified;
  return unified === undefined ? undefined : Object.hasOwn(FINISH_REASONS, unified) ? FINISH_REASONS[unified] : 'other';
}

/** Reported counts only: a count the provider did not give stays `undefined`, never 0. */
export function usageOf(usage: AiSdkGenerateResult['usage']): Usage {
  if (usage === undefined) return {};
  const total = (c: unknown) => (typeof c === 'object' && c !== null ? (c as { total?: number | null }).total : (c as number | null | undefined));
  const inputTokens = total(usage.inputTokens);
  const outputTokens = total(usage.outputTokens);
  return {
    ...(typeof inputTokens === 'number' ? { inputTokens } : {}),
    ...(typeof outputTokens === 'number' ? { outputTokens } : {}),
  };
}
