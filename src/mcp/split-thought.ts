import { safeCutEnd } from '../internal/clip-text.js';

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;

/**
 * Splits a thought longer than a session's limit into parts of at most `max` UTF-16 code units
 * whose concatenation is the thought, unit for unit: each cut falls right after a space or line
 * break in the second half of the part when there is one (the space stays with the part before,
 * so `parts.join('')` gives the thought back), else at `max`, never between the two halves of a
 * surrogate pair (unless `max` is 1, when a pair cannot fit in one part). Every part has at least
 * one unit; an empty thought is one empty part.
 *
 * @example
 * ```ts
 * splitThought('Cache it. Drop it on SIGHUP.', 12); // ['Cache it. ', 'Drop it on ', 'SIGHUP.']
 * splitThought('ab😀', 3);                          // ['ab', '😀']
 * ```
 */
export function splitThought(text: string, max: number): string[] {
  const limit = Math.max(1, Math.floor(max));
  const out: string[] = [];
  let start = 0;
  while (text.length - start > limit) {
    let cut = 0;
    for (let i = start + limit - 1; i >= start + limit / 2; i--) {
      if (isSpace(text.charCodeAt(i))) {
        cut = i + 1;
        break;
      }
    }
    if (cut === 0) {
      cut = safeCutEnd(text, start + limit);
      // Only a part of one unit can end in half a pair, and it must: it cannot hold the whole pair.
      if (cut === start) cut = start + limit;
    }
    out.push(text.slice(start, cut));
    start = cut;
  }
  out.push(text.slice(start));
  return out;
}
