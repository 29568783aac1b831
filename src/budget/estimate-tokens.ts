/**
 * A conservative token estimate for text: one token per three characters, rounded up. Real
 * tokenizers average about four characters per token on English prose, so the estimate errs high,
 * which is the safe side for budget admission.
 *
 * @example
 * ```ts
 * import { estimateTokens } from '@tot/core';
 *
 * estimateTokens('four nine ten'); // 5
 * ```
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3);
}

/**
 * {@link estimateTokens} over a request's messages, plus four tokens of framing per message.
 *
 * @example
 * ```ts
 * import { estimateRequestTokens } from '@tot/core';
 *
 * estimateRequestTokens({ messages: [{ role: 'user', content: 'hello' }] }); // 6
 * ```
 */
export function estimateRequestTokens(request: { messages: readonly { content: string }[] }): number {
  let total = 0;
  for (const message of request.messages) total += estimateTokens(message.content) + 4;
  return total;
}

/**
 * The tokens a call is charged: what the model reported, and an estimate (see
 * {@link estimateTokens}) for a figure it did not report or reported malformed.
 *
 * @example
 * ```ts
 * import type { ChargedUsage } from '@tot/core';
 *
 * const u: ChargedUsage = { inputTokens: 812, outputTokens: 22, estimated: true };
 * ```
 */
export interface ChargedUsage {
  inputTokens: number;
  outputTokens: number;
  /** Whether either figure is an estimate. */
  estimated: boolean;
  /**
   * Set when the model's usage was malformed: a figure that is not a token count (a
   * non-negative safe integer: `NaN`, `Infinity`, negative, fractional, a string, …), or no usage
   * object at all. Such a figure is treated as unknown, so it is estimated.
   */
  malformed?: true;
}

/** Whether `value` is a token count a model may report: a non-negative safe integer (what the result schema accepts). */
export function isTokenCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * What a completed call is charged, the same way by a {@link Budget}, a `UsageMeter` and a run's
 * stats: reported usage as is; a missing input figure estimated from the request, a missing
 * output figure from the outputs. A malformed figure counts as missing (and the result is
 * flagged `malformed`), so a provider's bad usage can never corrupt a count.
 *
 * @example
 * ```ts
 * import { chargedUsage } from '@tot/core';
 *
 * chargedUsage({ messages: [{ role: 'user', content: 'hello' }] }, { outputs: ['hi there'], usage: {} });
 * // { inputTokens: 6, outputTokens: 3, estimated: true }
 * chargedUsage({ messages: [{ role: 'user', content: 'hello' }] }, { outputs: ['hi there'], usage: { inputTokens: Number.NaN, outputTokens: 2 } });
 * // { inputTokens: 6, outputTokens: 2, estimated: true, malformed: true }
 * ```
 */
export function chargedUsage(
  request: { messages: readonly { content: string }[] },
  result: { outputs: readonly string[]; usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } },
): ChargedUsage {
  // The types say what a well-behaved model returns; the checks are for the others.
  const usage: unknown = typeof result === 'object' && result !== null ? result.usage : undefined;
  const fields = typeof usage === 'object' && usage !== null ? (usage as Record<string, unknown>) : {};
  const reportedInput = fields.inputTokens;
  const reportedOutput = fields.outputTokens;
  const inputTokens = isTokenCount(reportedInput) ? reportedInput : undefined;
  const outputTokens = isTokenCount(reportedOutput) ? reportedOutput : undefined;
  const malformed = fields !== usage || (reportedInput !== undefined && inputTokens === undefined) || (reportedOutput !== undefined && outputTokens === undefined);
  if (inputTokens !== undefined && outputTokens !== undefined) return { inputTokens, outputTokens, estimated: false };
  let estimatedOutput = 0;
  if (outputTokens === undefined) {
    const outputs: unknown = typeof result === 'object' && result !== null ? result.outputs : undefined;
    if (Array.isArray(outputs)) for (const output of outputs) if (typeof output === 'string') estimatedOutput += estimateTokens(output);
  }
  const charged: ChargedUsage = {
    inputTokens: inputTokens ?? estimateRequestTokens(request),
    outputTokens: outputTokens ?? estimatedOutput,
    estimated: inputTokens === undefined || outputTokens === undefined,
  };
  if (malformed) charged.malformed = true;
  return charged;
}
