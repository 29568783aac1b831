import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ThoughtTree, TotError, type ThoughtNode } from '../../src/index.js';

type Op =
  | { kind: 'add'; pick: number; content: string; score: number | null }
  | { kind: 'prune'; pick: number }
  | { kind: 'terminal'; pick: number }
  | { kind: 'evaluate'; pick: number; score: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('add' as const), pick: fc.nat(), content: fc.string({ maxLength: 20 }), score: fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prune' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('terminal' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('evaluate' as const), pick: fc.nat(), score: fc.double({ min: 0, max: 10, noNaN: true }) }) },
);

/** Applies operations; illegal ones must fail with a TotError and change nothing. */
function build(ops: Op[]): ThoughtTree {
  const tree = new ThoughtTree({ problem: 'random', taskId: 'prop', searchConfig: { strategy: 'mcts' } });
  for (const o of ops) {
    const nodes = [...tree.all()];
    const target = nodes[o.pick % nodes.length]!;
    const before = JSON.stringify(tree.toJSON());
    try {
      if (o.kind === 'add') {
        tree.addChild(target.id, { content: o.content, ...(o.score === null ? {} : { evaluation: { score: o.score, confidence: 0.5, reasoning: '' } }) });
      } else if (o.kind === 'prune') tree.prune(target.id);
      else if (o.kind === 'terminal') tree.markTerminal(target.id);
      else tree.evaluate(target.id, { score: o.score, confidence: 1, reasoning: 'r' });
    } catch (error) {
      expect(TotError.isInstance(error)).toBe(true);
      expect(JSON.stringify(tree.toJSON())).toBe(before);
    }
  }
  return tree;
}

function checkInvariants(tree: ThoughtTree): void {
  const nodes = [...tree.all()];
  const byId = new Map(nodes.map((n) => [n.id, n] as [string, ThoughtNode]));
  expect(byId.size).toBe(nodes.length);
  for (const node of nodes) {
    if (node.parentId === null) {
      expect(node.id).toBe(tree.rootId);
      continue;
    }
    const parent = byId.get(node.parentId)!;
    expect(parent.childrenIds).toContain(node.id);
    expect(node.depth).toBe(parent.depth + 1);
    expect(node.id).toMatch(new RegExp(`^node_${node.depth}_\\d+$`));
    if (parent.status === 'pruned') expect(node.status).toBe('pruned');
  }
  for (const node of nodes) if (node.childrenIds.length > 0) expect(['expanded', 'pruned']).toContain(node.status);
  const best = tree.bestPath();
  expect(best[0]!.id).toBe(tree.rootId);
  for (const n of best.slice(1)) expect(n.status).not.toBe('pruned');
}

describe('ThoughtTree invariants (property)', () => {
  it('hold for random operation sequences and survive JSON and protocol round trips', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const tree = build(ops);
        checkInvariants(tree);
        const json = tree.toJSON();
        const viaJson = ThoughtTree.fromJSON(JSON.parse(JSON.stringify(json)));
        expect(viaJson.toJSON()).toEqual(json);
        checkInvariants(viaJson);
        const viaProtocol = ThoughtTree.fromProtocol(JSON.parse(JSON.stringify(tree.toProtocol())));
        expect(viaProtocol.toJSON()).toEqual(json);
        expect(viaProtocol.toMermaid()).toBe(tree.toMermaid());
      }),
      { numRuns: 300 },
    );
  });

  it('are deterministic: the same operations give the same tree and ids', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        expect(build(ops).toJSON()).toEqual(build(ops).toJSON());
      }),
      { numRuns: 100 },
    );
  });
});
