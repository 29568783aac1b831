import { describe, expect, it } from 'vitest';
import { canTransition, NODE_TRANSITIONS, ThoughtTree } from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const evaluation = (score: number) => ({ score, confidence: 0.9, reasoning: `score ${score}` });

function game24Tree() {
  const tree = new ThoughtTree({ problem: '4 9 10 13', taskType: 'math_reasoning', taskId: 'g24' });
  const [a, b] = tree.addChildren(tree.rootId, [
    { content: '13 - 9 = 4 (left: 4 4 10)', actionType: 'subtraction' },
    { content: '10 + 4 = 14 (left: 9 13 14)', actionType: 'addition' },
  ]);
  return { tree, a: a!, b: b! };
}

describe('ThoughtTree', () => {
  it('starts with a pending root holding the problem', () => {
    const tree = new ThoughtTree({ problem: '4 9 10 13' });
    expect(tree.root).toMatchObject({ id: 'root', parentId: null, depth: 0, content: '4 9 10 13', status: 'pending', evaluation: null });
    expect(tree.size).toBe(1);
    expect(tree.searchConfig).toEqual({ strategy: 'bfs', maxDepth: 3, branchingFactor: 5, pruningThreshold: 3 });
    expect(tree.taskId).toBe('task');
  });

  it('gives deterministic ids node_<depth>_<n> in creation order', () => {
    const { tree, a, b } = game24Tree();
    const c = tree.addChild(b.id, { content: 'x' });
    const d = tree.addChild(a.id, { content: 'y' });
    expect([a.id, b.id, c.id, d.id]).toEqual(['node_1_1', 'node_1_2', 'node_2_1', 'node_2_2']);
  });

  it('links parent and child and marks a pending parent expanded', () => {
    const { tree, a } = game24Tree();
    expect(tree.root.status).toBe('expanded');
    expect(tree.root.childrenIds).toEqual(['node_1_1', 'node_1_2']);
    expect(a).toMatchObject({ parentId: 'root', depth: 1, status: 'pending', actionType: 'subtraction' });
    expect(tree.parent(a.id)?.id).toBe('root');
    expect(tree.children('root').map((n) => n.id)).toEqual(['node_1_1', 'node_1_2']);
  });

  it('copies metadata so that later changes to the caller object do not leak in', () => {
    const tree = new ThoughtTree({ problem: 'p' });
    const metadata = { left: [4, 4, 10] };
    const node = tree.addChild('root', { content: 'a', metadata });
    metadata.left.length = 0;
    (metadata as Record<string, unknown>).extra = true;
    expect(node.metadata).toEqual({ left: [4, 4, 10] });
  });

  it('returns root-to-node paths', () => {
    const { tree, a } = game24Tree();
    const c = tree.addChild(a.id, { content: '10 - 4 = 6 (left: 4 6)' });
    expect(tree.pathIds(c.id)).toEqual(['root', 'node_1_1', 'node_2_1']);
    expect(tree.path(c.id).map((n) => n.depth)).toEqual([0, 1, 2]);
  });

  it('records evaluations and rejects out-of-range ones', async () => {
    const { tree, a } = game24Tree();
    tree.evaluate(a.id, { ...evaluation(7.5), dimensionScores: { progress: 5 } });
    expect(tree.node(a.id).evaluation).toEqual({ score: 7.5, confidence: 0.9, reasoning: 'score 7.5', dimensionScores: { progress: 5 } });
    const error = await catchTotError(() => tree.evaluate(a.id, { score: 11, confidence: 0.5, reasoning: '' }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('evaluation.score');
    await catchTotError(() => tree.evaluate(a.id, { score: 1, confidence: 2, reasoning: '' }), 'INVALID_ARGUMENT');
  });

  it('prunes a whole subtree and drops it from the frontier', () => {
    const { tree, a, b } = game24Tree();
    const c = tree.addChild(a.id, { content: 'c' });
    tree.setSearchState({ frontier: [c.id, b.id], bestPath: ['root', a.id, c.id] });
    expect(tree.prune(a.id)).toEqual([a.id, c.id]);
    expect(tree.node(c.id).status).toBe('pruned');
    expect(tree.searchState.frontier).toEqual([b.id]);
    expect(tree.searchState.bestPath).toEqual([]);
    expect(tree.prune(a.id)).toEqual([]);
  });

  it('prunes a leaf: drops it from the frontier and clears a best path through it', () => {
    const { tree, a, b } = game24Tree();
    tree.setSearchState({ frontier: [a.id, b.id], bestPath: ['root', b.id] });
    expect(tree.prune(b.id)).toEqual([b.id]);
    expect(tree.node(b.id).status).toBe('pruned');
    expect(tree.searchState.frontier).toEqual([a.id]);
    expect(tree.searchState.bestPath).toEqual([]);
    expect(tree.prune(b.id)).toEqual([]);
  });

  it('lists the pending nodes as the frontier', () => {
    const { tree, a, b } = game24Tree();
    tree.addChild(a.id, { content: 'c' });
    tree.markTerminal(b.id);
    expect(tree.frontier().map((n) => n.id)).toEqual(['node_2_1']);
  });

  describe('status machine', () => {
    it('allows exactly the transitions of the table', () => {
      expect(NODE_TRANSITIONS).toEqual({
        pending: ['expanded', 'pruned', 'terminal'],
        expanded: ['pruned'],
        terminal: ['pruned'],
        pruned: [],
      });
      expect(canTransition('pending', 'terminal')).toBe(true);
      expect(canTransition('terminal', 'expanded')).toBe(false);
    });

    it('throws ILLEGAL_STATE on an illegal transition', async () => {
      const { tree, a, b } = game24Tree();
      tree.prune(a.id);
      const error = await catchTotError(() => tree.setStatus(a.id, 'pending'), 'ILLEGAL_STATE');
      expect(error.details).toEqual({ nodeId: a.id, from: 'pruned', to: 'pending' });
      tree.markTerminal(b.id);
      await catchTotError(() => tree.setStatus(b.id, 'expanded'), 'ILLEGAL_STATE');
      await catchTotError(() => tree.markTerminal('root'), 'ILLEGAL_STATE');
    });

    it('refuses children under a pruned or terminal node', async () => {
      const { tree, a, b } = game24Tree();
      tree.prune(a.id);
      tree.markTerminal(b.id);
      await catchTotError(() => tree.addChild(a.id, { content: 'x' }), 'ILLEGAL_STATE');
      await catchTotError(() => tree.addChild(b.id, { content: 'x' }), 'ILLEGAL_STATE');
      expect(tree.size).toBe(3);
    });

    it('refuses to evaluate a pruned node', async () => {
      const { tree, a } = game24Tree();
      tree.prune(a.id);
      await catchTotError(() => tree.evaluate(a.id, evaluation(5)), 'ILLEGAL_STATE');
    });
  });

  describe('bestPath', () => {
    it('prefers the highest-scoring terminal node', () => {
      const { tree, a, b } = game24Tree();
      const deep = tree.addChild(a.id, { content: 'deep but not terminal' });
      tree.evaluate(deep.id, evaluation(10));
      tree.evaluate(b.id, evaluation(6));
      tree.markTerminal(b.id);
      expect(tree.bestPath().map((n) => n.id)).toEqual(['root', b.id]);
    });

    it('otherwise takes the deepest node, then the best score, then the first created', () => {
      const { tree, a, b } = game24Tree();
      tree.evaluate(a.id, evaluation(9));
      expect(tree.bestPath().map((n) => n.id)).toEqual(['root', a.id]);
      const [c, d] = tree.addChildren(b.id, [{ content: 'c' }, { content: 'd' }]);
      expect(tree.bestPath().map((n) => n.id)).toEqual(['root', b.id, c!.id]);
      tree.evaluate(d!.id, evaluation(2));
      expect(tree.bestPath().map((n) => n.id)).toEqual(['root', b.id, d!.id]);
    });

    it('ignores pruned nodes and falls back to the root', () => {
      const { tree, a, b } = game24Tree();
      tree.prune(a.id);
      tree.prune(b.id);
      expect(tree.bestPath().map((n) => n.id)).toEqual(['root']);
    });
  });

  describe('bad input', () => {
    it('names the unknown node', async () => {
      const tree = new ThoughtTree({ problem: 'p' });
      const error = await catchTotError(() => tree.addChild('node_9_9', { content: 'x' }), 'INVALID_ARGUMENT');
      expect(error.message).toContain('parentId');
      expect(error.message).toContain('node_9_9');
      await catchTotError(() => tree.path('nope'), 'INVALID_ARGUMENT');
    });

    it('validates the new thought', async () => {
      const tree = new ThoughtTree({ problem: 'p' });
      const error = await catchTotError(() => tree.addChild('root', { content: 42 } as never), 'INVALID_ARGUMENT');
      expect(error.message).toContain('thought.content');
      await catchTotError(() => tree.addChild('root', { content: 'x', evaluation: { score: -1, confidence: 0, reasoning: '' } }), 'INVALID_ARGUMENT');
      await catchTotError(() => tree.addChild('root', { content: 'x', metadata: [] as never }), 'INVALID_ARGUMENT');
    });

    it('validates constructor options', async () => {
      const error = await catchTotError(() => new ThoughtTree({ problem: 'p', searchConfig: { branchingFactor: 0 } }), 'INVALID_ARGUMENT');
      expect(error.message).toContain('options.searchConfig.branchingFactor');
      await catchTotError(() => new ThoughtTree({} as never), 'INVALID_ARGUMENT');
    });

    it('validates search state ids', async () => {
      const tree = new ThoughtTree({ problem: 'p' });
      await catchTotError(() => tree.setSearchState({ frontier: ['ghost'] }), 'INVALID_ARGUMENT');
    });
  });
});
