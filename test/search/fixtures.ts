import type { EvaluationBatch, ThoughtEvaluator, ThoughtGenerator } from '../../src/index.js';

/**
 * A hand-checkable problem:
 *
 *   R ─┬─ A (5) ─┬─ A1 (7)
 *      │         └─ A2 (4)
 *      ├─ B (8) ─┬─ B1 (6)
 *      │         └─ B2 (9)
 *      └─ C (2) ─── C1 (10)
 */
export const CHILDREN: Record<string, string[]> = { R: ['A', 'B', 'C'], A: ['A1', 'A2'], B: ['B1', 'B2'], C: ['C1'] };
export const SCORES: Record<string, number> = { A: 5, B: 8, C: 2, A1: 7, A2: 4, B1: 6, B2: 9, C1: 10 };

/** Records which nodes were expanded and evaluated, in call order. */
export function scriptedRoles(children = CHILDREN, scores = SCORES) {
  const expanded: string[] = [];
  const evaluated: string[][] = [];
  const generator: ThoughtGenerator = {
    async generate({ parent }) {
      expanded.push(parent.content);
      return (children[parent.content] ?? []).map((content) => ({ content }));
    },
  };
  const evaluator: ThoughtEvaluator = {
    async evaluate({ candidates }): Promise<EvaluationBatch> {
      evaluated.push(candidates.map((c) => c.content));
      return {
        evaluations: candidates.map((c) => ({ nodeId: c.id, score: scores[c.content] ?? 0, confidence: 1, reasoning: 'fixture' })),
        ranking: [],
        pruningSuggestions: [],
      };
    },
  };
  // The records are not enumerable, so that `{ ...roles }` gives a runner the two roles and no unknown option.
  return Object.defineProperties({ generator, evaluator }, { expanded: { value: expanded }, evaluated: { value: evaluated } }) as {
    generator: ThoughtGenerator;
    evaluator: ThoughtEvaluator;
    readonly expanded: string[];
    readonly evaluated: string[][];
  };
}
