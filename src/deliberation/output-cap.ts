import { estimateTokens, isTokenCount } from '../budget/estimate-tokens.js';
import type { FinishReason } from '../model/types.js';
import { ELLIPSIS, safeCutEnd } from '../internal/clip-text.js';

/**
 * How an output hit the per-output token cap (a single agent's output is at most
 * `maxOutputTokens`): cut by the engine to the cap (judged by the provider's own count of the
 * output tokens when the call that wrote it reported one, otherwise by {@link estimateTokens}), or
 * stopped by the provider itself at the call's `maxOutputTokens` (`by: 'provider'`, not cut again).
 *
 * @example
 * ```ts
 * import type { OutputTruncation } from '@tot/core/deliberation';
 *
 * const note = (t: OutputTruncation) =>
 *   t.by === 'provider' ? `stopped by the provider at ${t.maxOutputTokens} tokens` : `cut from ${t.outputTokens ?? `about ${t.estimatedTokens}`} tokens to ${t.maxOutputTokens}`;
 * ```
 */
export interface OutputTruncation {
  /** The estimated tokens ({@link estimateTokens}) of the text as it was given. */
  estimatedTokens: number;
  /**
   * The provider's count of the text's tokens, when the call that wrote it reported usage (the
   * text's share of the call's `usage.outputTokens`): what the cap was judged by.
   */
  outputTokens?: number;
  /** The cap it was cut to; with `by: 'provider'`, the `maxOutputTokens` the provider stopped at. */
  maxOutputTokens: number;
  /**
   * `'provider'`: the call ended with `finishReason: 'length'`: the provider stopped the output at
   * its `maxOutputTokens` (never above the cap), so the engine left it as it was. Absent: the
   * engine cut it.
   */
  by?: 'provider';
}

/**
 * What the model call that wrote a text said about its output, when the text is (part of) that
 * call's output: the provider's count of its output tokens, and why it stopped.
 */
export interface OutputMeasure {
  /** The call's `usage.outputTokens` (every output of the call), when the provider reported it. */
  outputTokens?: number;
  /** The characters of the call's outputs, all of them: the count's share of the text is by characters. */
  chars: number;
  /** The call's finish reason, given only when the text is the call's output as a whole. */
  finishReason?: FinishReason;
  /** The `maxOutputTokens` the call was given. */
  maxOutputTokens?: number;
}

/**
 * `text` within `maxOutputTokens` tokens: as it is when it fits, otherwise cut (never inside a
 * surrogate pair) and ended with `…`, with the truncation recorded.
 *
 * What counts as a token: when `measure` has the provider's count of the call's output tokens,
 * that count (the text's share of it, by characters), so a model that kept to its
 * `maxOutputTokens` is never cut. Otherwise {@link estimateTokens} (characters / 3), which errs
 * high on English prose (about 4 characters a token): an output of a model that does not report
 * usage, or a text a participant wrote itself, may be cut below the real cap. That is the safe
 * side: CJK text runs one to two characters a token, so even characters / 3 undercounts it, and
 * a looser characters / 4 would let it run far over the cap.
 *
 * A call that ended with `finishReason: 'length'` was stopped by the provider at its
 * `maxOutputTokens` (at most the cap): its output is not cut again, only marked (`by:
 * 'provider'`), unless the provider's own count says it is over the cap all the same.
 */
export function capOutput(text: string, maxOutputTokens: number, measure?: OutputMeasure): { text: string; truncation?: OutputTruncation } {
  const estimatedTokens = estimateTokens(text);
  const count = measure && isTokenCount(measure.outputTokens) && measure.chars > 0 ? { tokens: measure.outputTokens, chars: measure.chars } : undefined;
  const tokensOf = count ? (s: string) => Math.ceil((s.length * count.tokens) / count.chars) : estimateTokens;
  const tokens = tokensOf(text);
  const reported = count ? { outputTokens: tokens } : {};
  if (measure?.finishReason === 'length' && (count === undefined || tokens <= maxOutputTokens)) {
    return { text, truncation: { estimatedTokens, ...reported, maxOutputTokens: Math.min(measure.maxOutputTokens ?? maxOutputTokens, maxOutputTokens), by: 'provider' } };
  }
  if (tokens <= maxOutputTokens) return { text };
  // The longest start of the text that fits with the ellipsis (found by bisection: the count grows with the length).
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (tokensOf(text.slice(0, mid) + ELLIPSIS) <= maxOutputTokens) low = mid;
    else high = mid - 1;
  }
  const cut = text.slice(0, safeCutEnd(text, low)) + ELLIPSIS;
  return { text: cut, truncation: { estimatedTokens, ...reported, maxOutputTokens } };
}
