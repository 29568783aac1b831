/**
 * Cutting text to a length without leaving half a character: JavaScript strings count UTF-16 code
 * units, and a character outside the Basic Multilingual Plane (most emoji, many CJK extension
 * ideographs) is two of them, a surrogate pair. A cut between the two leaves a lone surrogate,
 * which is not text (`JSON.stringify` escapes it, a UTF-8 encoder replaces it with U+FFFD).
 */

/** Marks the end of a clipped text. */
export const ELLIPSIS = '…';

/**
 * The end to slice `text` at, at most `end`, that does not split a surrogate pair: `end` itself,
 * or one less when `text[end - 1]` is the first half of a pair (whose second half would be cut off).
 * `end` is clamped to `0..text.length`.
 *
 * @example
 * ```ts
 * safeCutEnd('a😀b', 2); // 1: 'a😀b'.slice(0, 2) would end in half the emoji
 * safeCutEnd('a😀b', 3); // 3
 * ```
 */
export function safeCutEnd(text: string, end: number): number {
  let at = Math.max(0, Math.min(text.length, Math.floor(end)));
  if (at > 0 && at < text.length) {
    const code = text.charCodeAt(at - 1);
    if (code >= 0xd800 && code <= 0xdbff) at -= 1;
  }
  return at;
}

/**
 * `text` in at most `max` UTF-16 code units (the unit `String.length` counts): as it is when it
 * fits, otherwise its start followed by `ellipsis` (default `…`), the two together within `max`,
 * never cut inside a surrogate pair (the cut may then be one unit shorter than `max`).
 *
 * @example
 * ```ts
 * clipText('Use an LRU of 64 entries.', 10); // 'Use an LR…'
 * clipText('ab😀', 3);                        // 'ab…' (never half the emoji)
 * clipText('short', 10);                      // 'short'
 * ```
 */
export function clipText(text: string, max: number, ellipsis: string = ELLIPSIS): string {
  const limit = Math.max(0, Math.floor(max));
  if (text.length <= limit) return text;
  if (ellipsis.length >= limit) return ellipsis.slice(0, safeCutEnd(ellipsis, limit));
  return text.slice(0, safeCutEnd(text, limit - ellipsis.length)) + ellipsis;
}
