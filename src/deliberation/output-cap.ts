import { estimateTokens } from '../budget/estimate-tokens.js';

/**
 * How an output was cut to the per-output token cap (seed 001 §10: a single agent's output is at
 * most `maxOutputTokens`), measured with {@link estimateTokens}.
 *
 * @example
 * ```ts
 * import type { OutputTruncation } from '@tot/core';
 *
 * const note = (t: OutputTruncation) => `cut from about ${t.estimatedTokens} tokens to ${t.maxOutputTokens}`;
 * ```
 */
export interface OutputTruncation {
  /** The estimated tokens of the text as it was given. */
  estimatedTokens: number;
  /** The cap it was cut to. */
  maxOutputTokens: number;
}

/** Marks a cut text's end. */
const ELLIPSIS = '…';

/**
 * `text` within `maxOutputTokens` estimated tokens: as it is when it fits, otherwise cut (never
 * inside a surrogate pair) and ended with `…`, with the truncation recorded.
 */
export function capOutput(text: string, maxOutputTokens: number): { text: string; truncation?: OutputTruncation } {
  const estimatedTokens = estimateTokens(text);
  if (estimatedTokens <= maxOutputTokens) return { text };
  // The longest start of the text that fits with the ellipsis (found by bisection: the estimate grows with the length).
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (estimateTokens(text.slice(0, mid) + ELLIPSIS) <= maxOutputTokens) low = mid;
    else high = mid - 1;
  }
  let end = low;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  const cut = text.slice(0, end) + ELLIPSIS;
  return { text: cut, truncation: { estimatedTokens, maxOutputTokens } };
}
