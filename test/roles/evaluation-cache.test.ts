import { describe, expect, it } from 'vitest';
import { bfs, Explorer, ThoughtTree, withEvaluationCache, type Evaluation, type TaskContext, type ThoughtEvaluator, type ThoughtGenerator, type ThoughtNode } from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const context: TaskContext = { problem: '4 9 10 13', taskType: 'math_reasoning', maxDepth: 3, pruningThreshold: 0 };

/** The Game of 24 state of a step: the numbers it leaves. */
const numbersLeft = (node: ThoughtNode) => /left: ([^)]*)\)/.exec(node.content)?.[1] ?? node.content;

/** An evaluator scoring each candidate by its length (at most 10), recording the candidates it was asked about. */
function countingEvaluator(): ThoughtEvaluator & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async evaluate({ candidates }) {
      asked.push(...candidates.map((c) => c.content));
      const evaluations = candidates.map((c) => ({ nodeId: c.id, score: Math.min(10, c.content.length / 3), confidence: 1, reasoning: `asked about ${c.content}` }));
      return { evaluations, ranking: [], pruningSuggestions: [] };
    },
  };
}

function steps(...contents: string[]) {
  const tree = new ThoughtTree({ problem: '4 9 10 13' });
  return { tree, nodes: tree.addChildren('root', contents.map((content) => ({ content }))) };
}

describe('withEvaluationCache', () => {
  it('serves a state already evaluated from the store, without calling the evaluator', async () => {
    const inner = countingEvaluator();
    const cached = withEvaluationCache(inner, { key: numbersLeft });
    const { tree, nodes } = steps('13 - 9 = 4 (left: 4 4 10)', '9 - 13 = -4 (left: 4 -4 10)', '4 + 0 = 4 (left: 4 4 10)');
    await cached.evaluate({ tree, candidates: [nodes[0]!], context });
    const batch = await cached.evaluate({ tree, candidates: [nodes[1]!, nodes[2]!], context });
    expect(inner.asked).toEqual(['13 - 9 = 4 (left: 4 4 10)', '9 - 13 = -4 (left: 4 -4 10)']);
    expect(batch.evaluations.find((e) => e.nodeId === nodes[2]!.id)).toMatchObject({ score: 25 / 3, reasoning: 'asked about 13 - 9 = 4 (left: 4 4 10)' });
  });

  it('sends candidates of one batch with equal keys once, the others getting a copy', async () => {
    const inner = countingEvaluator();
    const cached = withEvaluationCache(inner, { key: numbersLeft });
    const { tree, nodes } = steps('13 - 9 = 4 (left: 4 4 10)', '4 + 0 = 4 (left: 4 4 10)');
    const batch = await cached.evaluate({ tree, candidates: nodes, context });
    expect(inner.asked).toEqual(['13 - 9 = 4 (left: 4 4 10)']);
    expect(batch.evaluations.map((e) => [e.nodeId, e.score])).toEqual([
      [nodes[0]!.id, 25 / 3],
      [nodes[1]!.id, 25 / 3],
    ]);
  });

  it('shares evaluations between evaluators given the same store', async () => {
    const store = new Map<string, Evaluation>();
    const first = countingEvaluator();
    const second = countingEvaluator();
    const a = steps('13 - 9 = 4 (left: 4 4 10)');
    const b = steps('10 - 6 = 4 (left: 4 4 10)');
    await withEvaluationCache(first, { key: numbersLeft, store }).evaluate({ tree: a.tree, candidates: a.nodes, context });
    const batch = await withEvaluationCache(second, { key: numbersLeft, store }).evaluate({ tree: b.tree, candidates: b.nodes, context });
    expect(second.asked).toEqual([]);
    expect(batch.evaluations[0]).toMatchObject({ nodeId: b.nodes[0]!.id, score: 25 / 3 });
  });

  it('does not keep an invalid evaluation: the state is asked about again', async () => {
    let calls = 0;
    const invalid: ThoughtEvaluator = {
      async evaluate({ candidates }) {
        calls += 1;
        return { evaluations: candidates.map((c) => ({ nodeId: c.id, score: 11, confidence: 1, reasoning: '' })), ranking: [], pruningSuggestions: [] };
      },
    };
    const cached = withEvaluationCache(invalid, { key: numbersLeft });
    const { tree, nodes } = steps('13 - 9 = 4 (left: 4 4 10)');
    await cached.evaluate({ tree, candidates: nodes, context });
    await cached.evaluate({ tree, candidates: nodes, context });
    expect(calls).toBe(2);
  });

  it('rejects with ABORTED, asking nothing, when the signal has aborted', async () => {
    const inner = countingEvaluator();
    const { tree, nodes } = steps('13 - 9 = 4 (left: 4 4 10)');
    const controller = new AbortController();
    controller.abort();
    await catchTotError(() => withEvaluationCache(inner, { key: numbersLeft }).evaluate({ tree, candidates: nodes, context }, { signal: controller.signal }), 'ABORTED');
    expect(inner.asked).toEqual([]);
  });

  it('refuses a misspelt option with INVALID_ARGUMENT', async () => {
    const error = await catchTotError(() => withEvaluationCache(countingEvaluator(), { key: numbersLeft, stroe: new Map() } as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('stroe');
  });

  it('in a search over several runs, asks the evaluator once per state of all of them', async () => {
    // Every parent proposes the same two steps: 4 4 10 and 4 6 left, whatever the problem.
    const generator: ThoughtGenerator = { generate: async () => [{ content: '13 - 9 = 4 (left: 4 4 10)' }, { content: '10 - 4 = 6 (left: 4 6)' }] };
    const inner = countingEvaluator();
    const store = new Map<string, Evaluation>();
    for (const problem of ['4 9 10 13', '4 9 10 13 again']) {
      const explorer = new Explorer({ generator, evaluator: withEvaluationCache(inner, { key: numbersLeft, store }), strategy: bfs({ beamWidth: 2 }), maxDepth: 2, pruningThreshold: 0 });
      await explorer.run(problem);
    }
    expect(inner.asked).toEqual(['13 - 9 = 4 (left: 4 4 10)', '10 - 4 = 6 (left: 4 6)']);
  });
});
