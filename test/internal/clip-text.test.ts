import { describe, expect, it } from 'vitest';
import { clipText, ELLIPSIS, safeCutEnd } from '../../src/internal/clip-text.js';

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('clipText', () => {
  it('leaves a text that fits as it is, and cuts a longer one to max units, the ellipsis included', () => {
    expect(clipText('short', 5)).toBe('short');
    expect(clipText('Use an LRU of 64 entries.', 10)).toBe('Use an LR…');
    expect(clipText('Use an LRU of 64 entries.', 10)).toHaveLength(10);
    expect(clipText('abcdef', 4, '...')).toBe('a...');
  });

  it('never cuts inside a surrogate pair: the pair goes whole, the text one unit shorter', () => {
    // 'ab😀cd': the emoji is units 2 and 3; max 4 keeps 3 units before the ellipsis, which would end on the emoji's first half.
    const text = 'ab😀cd';
    expect(clipText(text, 4)).toBe('ab…');
    expect(clipText(text, 5)).toBe('ab😀…');
    for (let max = 0; max <= text.length + 1; max++) {
      const clipped = clipText(text, max);
      expect(clipped.length, `max ${max}`).toBeLessThanOrEqual(max);
      expect(clipped, `max ${max}`).not.toMatch(loneSurrogate);
    }
  });

  it('holds every cut of a text of astral characters to whole characters', () => {
    const text = '𠀀𠀁𠀂 🎉🎉 x';
    for (let max = 0; max <= text.length; max++) expect(clipText(text, max), `max ${max}`).not.toMatch(loneSurrogate);
  });

  it('gives the ellipsis alone (or less) when max leaves no room for text', () => {
    expect(clipText('abc', 1)).toBe(ELLIPSIS);
    expect(clipText('abc', 0)).toBe('');
    expect(clipText('abcdef', 2, '...')).toBe('..');
  });
});

describe('safeCutEnd', () => {
  it('moves a cut off the middle of a surrogate pair, and clamps it to the text', () => {
    expect(safeCutEnd('a😀b', 2)).toBe(1);
    expect(safeCutEnd('a😀b', 3)).toBe(3);
    expect(safeCutEnd('a😀b', 1)).toBe(1);
    expect(safeCutEnd('a😀', 3)).toBe(3);
    expect(safeCutEnd('abc', 10)).toBe(3);
    expect(safeCutEnd('abc', -1)).toBe(0);
  });
});
