import { describe, expect, it } from 'vitest';
import { dfs, Explorer, TotError, type DfsOptions, type ExplorationResult, type ThoughtEvaluator, type ThoughtGenerator } from '../../src/index.js';
import { settlesWithin } from '../helpers/settles-within.js';

/**
 * A hand-checkable problem: each child carries the generator's proposal score and gets the
 * evaluator's score.
 *
 *   R ─┬─ A (proposal 0.5, score 2) ─── A1 (proposal 1, score 6)
 *      ├─ B (proposal 1,   score 9) ─── B1 (proposal 1, score 7)
 *      └─ C (proposal 0.5, score 5) ─── C1 (proposal 1, score 8)
 */
const CHILDREN: Record<string, [string, number | undefined][]> = {
  R: [['A', 0.5], ['B', 1], ['C', 0.5]],
  A: [['A1', 1]],
  B: [['B1', 1]],
  C: [['C1', 1]],
};
const SCORES: Record<string, number> = { A: 2, B: 9, C: 5, A1: 6, B1: 7, C1: 8 };

function roles(children = CHILDREN) {
  const expanded: string[] = [];
  const evaluated: string[][] = [];
  const generator: ThoughtGenerator = {
    async generate({ parent }) {
      expanded.push(parent.content);
      return (children[parent.content] ?? []).map(([content, proposalScore]) => ({ content, ...(proposalScore === undefined ? {} : { metadata: { proposalScore } }) }));
    },
  };
  const evaluator: ThoughtEvaluator = {
    async evaluate({ candidates }) {
      evaluated.push(candidates.map((c) => c.content));
      return { evaluations: candidates.map((c) => ({ nodeId: c.id, score: SCORES[c.content] ?? 0, confidence: 1, reasoning: 'fixture' })), ranking: [], pruningSuggestions: [] };
    },
  };
  return { generator, evaluator, expanded, evaluated };
}

async function search(options: DfsOptions, maxDepth = 1, children = CHILDREN) {
  const r = roles(children);
  const terminalIds: string[] = [];
  const explorer = new Explorer({ generator: r.generator, evaluator: r.evaluator, strategy: dfs(options), maxDepth, pruningThreshold: 0 });
  explorer.on('node.terminal', (e) => terminalIds.push(e.nodeId));
  const result: ExplorationResult = await explorer.run('R');
  const statusOf = (name: string) => [...result.tree.all()].find((n) => n.content === name)?.status;
  return { ...r, result, terminal: terminalIds.map((id) => result.tree.node(id).content), statusOf };
}

describe('dfs: order', () => {
  it('tries children by the evaluator\'s score by default', async () => {
    const { terminal } = await search({});
    expect(terminal).toEqual(['B', 'C', 'A']);
  });

  it('tries children by the generator\'s proposal score with order: proposal, ties in generation order', async () => {
    const { terminal } = await search({ order: 'proposal' });
    expect(terminal).toEqual(['B', 'A', 'C']);
  });

  it('compares proposal scores exactly: 0.1 + 0.2 goes before 0.3', async () => {
    const { terminal } = await search({ order: 'proposal' }, 1, { R: [['A', 0.3], ['B', 0.1 + 0.2]] });
    expect(terminal).toEqual(['B', 'A']);
  });

  it('tries children without a proposal score last', async () => {
    const { terminal } = await search({ order: 'proposal' }, 1, { R: [['A', undefined], ['B', 0.1]] });
    expect(terminal).toEqual(['B', 'A']);
  });
});

describe('dfs: evaluate', () => {
  it('evaluates all children of a state at once by default', async () => {
    const { evaluated } = await search({ order: 'proposal' });
    expect(evaluated).toEqual([['A', 'B', 'C']]);
  });

  it('evaluates each child when the search steps into it with evaluate: on-visit', async () => {
    const { evaluated } = await search({ order: 'proposal', evaluate: 'on-visit' }, 2);
    expect(evaluated).toEqual([['B'], ['B1'], ['A'], ['A1'], ['C'], ['C1']]);
  });

  it('refuses on-visit evaluation with the evaluator\'s order, which needs every child evaluated first', () => {
    const error = (() => {
      try {
        dfs({ evaluate: 'on-visit' });
      } catch (e) {
        return e;
      }
    })();
    expect(TotError.hasCode(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as TotError).message).toMatch(/order/);
  });
});

describe('dfs: maxPerState', () => {
  it('tries at most maxPerState children of a state and prunes the others untried', async () => {
    const { terminal, evaluated, statusOf } = await search({ order: 'proposal', evaluate: 'on-visit', maxPerState: 2 });
    expect(terminal).toEqual(['B', 'A']);
    expect(evaluated).toEqual([['B'], ['A']]);
    expect(statusOf('C')).toBe('pruned');
  });
});

describe('dfs: isValid', () => {
  it('prunes a child it rejects unevaluated, and the child does not count toward maxPerState', async () => {
    const { terminal, evaluated, statusOf } = await search({ order: 'proposal', evaluate: 'on-visit', maxPerState: 2, isValid: (node) => node.content !== 'B' });
    expect(terminal).toEqual(['A', 'C']);
    expect(evaluated).toEqual([['A'], ['C']]);
    expect(statusOf('B')).toBe('pruned');
  });

  it('gives isValid the search\'s signal, and a run whose isValid never settles ends when its caller aborts', async () => {
    const r = roles();
    const signals: AbortSignal[] = [];
    const controller = new AbortController();
    const isValid: DfsOptions['isValid'] = (_node, _tree, { signal }) => {
      signals.push(signal);
      controller.abort(new Error('the caller gave up'));
      return new Promise<boolean>(() => undefined);
    };
    const explorer = new Explorer({ generator: r.generator, evaluator: r.evaluator, strategy: dfs({ isValid }), maxDepth: 1, pruningThreshold: 0 });
    const error = await settlesWithin(explorer.run('R', { signal: controller.signal }).then(() => undefined, (e: unknown) => e));
    expect(error).toBeInstanceOf(TotError);
    expect((error as TotError).code).toBe('ABORTED');
    expect(signals[0]?.aborted).toBe(true);
  });

  it('keeps rejected children from the evaluator with evaluation up front too', async () => {
    const { evaluated } = await search({ isValid: (node) => node.content !== 'B' });
    expect(evaluated).toEqual([['A', 'C']]);
  });
});

describe('dfs: pruneWhen', () => {
  it('does not descend into a child its rule prunes', async () => {
    const { expanded, statusOf } = await search({ order: 'proposal', evaluate: 'on-visit', pruneWhen: (e) => e.score < 5 }, 2);
    expect(expanded).toEqual(['R', 'B', 'C']);
    expect(statusOf('A')).toBe('pruned');
  });

  it('counts a pruned child as a step with evaluation on visit', async () => {
    const { evaluated, result } = await search({ order: 'proposal', evaluate: 'on-visit', maxSteps: 2, pruneWhen: (e) => e.score < 5 });
    // B is a step, A (pruned on its evaluation) is the second: C is never tried.
    expect(evaluated).toEqual([['B'], ['A']]);
    expect(result.stopReason).toBe('max_states');
  });
});

describe('dfs: maxSteps', () => {
  it('stops with max_states when the steps are used up', async () => {
    const { evaluated, result } = await search({ order: 'proposal', evaluate: 'on-visit', maxSteps: 3 }, 2);
    expect(evaluated).toEqual([['B'], ['B1'], ['A']]);
    expect(result.stopReason).toBe('max_states');
  });
});

describe('dfs: recorded settings', () => {
  it('records only maxStates when no other option is given, as before these options existed', () => {
    expect(dfs().options).toEqual({ maxStates: 100 });
  });

  it('records the options given, functions as present', () => {
    expect(dfs({ order: 'proposal', evaluate: 'on-visit', maxPerState: 3, maxSteps: 100, isValid: () => true, pruneWhen: () => false }).options).toEqual({
      maxStates: 100,
      order: 'proposal',
      evaluate: 'on-visit',
      maxPerState: 3,
      maxSteps: 100,
      isValid: true,
      pruneWhen: true,
    });
  });
});
