import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectGreedy } from '../../src/search/selection.js';
import type { ThoughtNode } from '../../src/index.js';

const node = (id: number, score: number | null): ThoughtNode => ({
  id: `n${id}`,
  parentId: 'root',
  childrenIds: [],
  depth: 1,
  content: `s${id}`,
  actionType: undefined,
  evaluation: score === null ? null : { score, confidence: 1, reasoning: '' },
  status: 'pending',
  metadata: {},
});

describe('selectGreedy', () => {
  it('keeps the k best by score, ties (and unscored nodes, as 0) in the order given', () => {
    const scores = fc.array(fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }), { maxLength: 30 });
    fc.assert(
      fc.property(scores, fc.integer({ min: -1, max: 8 }), (list, k) => {
        const nodes = list.map((score, i) => node(i, score));
        // The definition: a stable sort by score, best first, cut at k.
        const expected = nodes
          .map((n, i) => ({ n, i, s: n.evaluation?.score ?? 0 }))
          .sort((a, b) => b.s - a.s || a.i - b.i)
          .slice(0, Math.max(0, k))
          .map(({ n }) => n.id);
        expect(selectGreedy(nodes, k).map((n) => n.id)).toEqual(expected);
      }),
    );
  });
});
