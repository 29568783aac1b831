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
