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
 * {@link estimateTokens}) for a figure it did not report.
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
}

/**
 * What a completed call is charged, the same way by a {@link Budget}, a `UsageMeter` and a run's
 * stats: reported usage as is; a missing input figure estimated from the request, a missing
 * output figure from the outputs.
 *
 * @example
 * ```ts
 * import { chargedUsage } from '@tot/core';
 *
 * chargedUsage({ messages: [{ role: 'user', content: 'hello' }] }, { outputs: ['hi there'], usage: {} });
 * // { inputTokens: 6, outputTokens: 3, estimated: true }
 * ```
 */
export function chargedUsage(
  request: { messages: readonly { content: string }[] },
  result: { outputs: readonly string[]; usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } },
): ChargedUsage {
  const { inputTokens, outputTokens } = result.usage;
  if (inputTokens !== undefined && outputTokens !== undefined) return { inputTokens, outputTokens, estimated: false };
  let estimatedOutput = 0;
  if (outputTokens === undefined) for (const output of result.outputs) estimatedOutput += estimateTokens(output);
  return {
    inputTokens: inputTokens ?? estimateRequestTokens(request),
    outputTokens: outputTokens ?? estimatedOutput,
    estimated: true,
  };
}
