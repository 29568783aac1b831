import { describe, expect, it } from 'vitest';
import { protocolThoughtTreeSchema, ThoughtTree } from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

function sampleTree() {
  const tree = new ThoughtTree({ problem: '4 9 10 13', taskType: 'math_reasoning', taskId: 'g24', searchConfig: { strategy: 'best-first', maxDepth: 4 } });
  const [a, b] = tree.addChildren('root', [{ content: '13 - 9 = 4 (left: 4 4 10)', actionType: 'subtraction', metadata: { left: [4, 4, 10] } }, { content: 'b' }]);
  tree.evaluate(a!.id, { score: 7.5, confidence: 0.8, reasoning: 'r', dimensionScores: { correctness: 10, progress: 5 } });
  const c = tree.addChild(a!.id, { content: '10 - 4 = 6 (left: 4 6)' });
  tree.markTerminal(c.id);
  tree.prune(b!.id);
  tree.setSearchState({ currentDepth: 2, frontier: [], bestPath: tree.bestPath().map((n) => n.id) });
  return tree;
}

describe('ThoughtTree JSON', () => {
  it('round-trips through JSON text exactly', () => {
    const tree = sampleTree();
    const copy = ThoughtTree.fromJSON(JSON.stringify(tree));
    expect(copy.toJSON()).toEqual(tree.toJSON());
    expect(copy.toMermaid()).toBe(tree.toMermaid());
  });

  it('continues numbering after a round trip without reusing ids', () => {
    const copy = ThoughtTree.fromJSON(sampleTree().toJSON());
    expect(copy.addChild('node_1_1', { content: 'next' }).id).toBe('node_2_2');
  });

  it('returns copies, not live views, from toJSON', () => {
    const tree = sampleTree();
    const json = tree.toJSON();
    (json.nodes.node_1_1!.metadata as Record<string, unknown>).left = 'changed';
    expect(tree.node('node_1_1').metadata).toEqual({ left: [4, 4, 10] });
  });

  // Corruptions reach past the read-only types on purpose, as a hand-edited file would.
  type Loose = { rootId: string; nodes: Record<string, Record<string, any>>; searchState: { frontier: string[] } };
  const corruptions: [string, (j: Loose) => void, string][] = [
    ['a missing root', (j) => void (j.rootId = 'nowhere'), 'root'],
    ['a dangling parent', (j) => void (j.nodes.node_2_1!.parentId = 'ghost'), 'unknown parent'],
    ['a child missing from its parent', (j) => void (j.nodes.node_1_1!.childrenIds = []), 'missing from'],
    ['a wrong depth', (j) => void (j.nodes.node_2_1!.depth = 5), 'depth'],
    ['a duplicated child', (j) => void j.nodes.root!.childrenIds.push('node_1_1'), 'twice'],
    ['a live node under a pruned one', (j) => void (j.nodes.node_1_2!.childrenIds = ['node_2_1']), 'names'],
    ['a pending node with children', (j) => void (j.nodes.node_1_1!.status = 'pending'), 'has children'],
    ['a key that differs from the id', (j) => void (j.nodes.other = { ...j.nodes.node_1_2! }), 'stored under'],
    ['a score out of range', (j) => void (j.nodes.node_1_1!.evaluation.score = 12), 'score'],
    ['an unknown status', (j) => void (j.nodes.node_1_1!.status = 'done'), 'status'],
    ['an unknown frontier id', (j) => void (j.searchState.frontier = ['ghost']), 'ghost'],
    ['a second root', (j) => void (j.nodes.node_1_2!.parentId = null), 'no parent'],
  ];
  for (const [name, corrupt, hint] of corruptions) {
    it(`rejects ${name} with INVALID_FORMAT`, async () => {
      const json = sampleTree().toJSON() as unknown as Loose;
      corrupt(json);
      const error = await catchTotError(() => ThoughtTree.fromJSON(json), 'INVALID_FORMAT');
      expect(error.message).toContain(hint);
    });
  }

  it('rejects text that is not JSON', async () => {
    await catchTotError(() => ThoughtTree.fromJSON('{oops'), 'INVALID_FORMAT');
  });
});

describe('ThoughtTree protocol format', () => {
  it('writes the seed-000 snake_case tree field for field', () => {
    const wire = sampleTree().toProtocol();
    expect(protocolThoughtTreeSchema.safeParse(wire).success).toBe(true);
    expect(Object.keys(wire).sort()).toEqual(['nodes', 'problem', 'root_id', 'search_config', 'search_state', 'task_id', 'task_type']);
    expect(wire.search_config).toEqual({ strategy: 'BEST_FIRST', max_depth: 4, branching_factor: 5, pruning_threshold: 3 });
    expect(wire.search_state).toEqual({ current_depth: 2, frontier: [], best_path: ['root', 'node_1_1', 'node_2_1'] });
    expect(wire.nodes.node_1_1).toEqual({
      id: 'node_1_1',
      parent_id: 'root',
      children_ids: ['node_2_1'],
      depth: 1,
      content: '13 - 9 = 4 (left: 4 4 10)',
      action_type: 'subtraction',
      evaluation: { score: 7.5, confidence: 0.8, reasoning: 'r', dimension_scores: { correctness: 10, progress: 5 } },
      status: 'expanded',
      metadata: { left: [4, 4, 10] },
    });
  });

  it('round-trips through the protocol format exactly', () => {
    const tree = sampleTree();
    expect(ThoughtTree.fromProtocol(tree.toProtocol()).toJSON()).toEqual(tree.toJSON());
  });

  it('maps the seed strategy names and passes custom names through', () => {
    const dfs = new ThoughtTree({ problem: 'p', searchConfig: { strategy: 'dfs' } });
    expect(dfs.toProtocol().search_config.strategy).toBe('DFS');
    const custom = new ThoughtTree({ problem: 'p', searchConfig: { strategy: 'diverse-beam' } });
    expect(ThoughtTree.fromProtocol(custom.toProtocol()).searchConfig.strategy).toBe('diverse-beam');
    const wire = dfs.toProtocol();
    wire.search_config.strategy = 'BFS';
    expect(ThoughtTree.fromProtocol(wire).searchConfig.strategy).toBe('bfs');
  });

  it('rejects a malformed wire tree with INVALID_FORMAT', async () => {
    const wire = sampleTree().toProtocol() as unknown as Record<string, unknown>;
    delete wire.root_id;
    await catchTotError(() => ThoughtTree.fromProtocol(wire), 'INVALID_FORMAT');
  });
});

describe('ThoughtTree diagrams', () => {
  it('draws Mermaid with labels, scores, edges and status classes', () => {
    const mermaid = sampleTree().toMermaid({ highlight: ['root', 'node_1_1'] });
    expect(mermaid.split('\n')[0]).toBe('graph TD');
    expect(mermaid).toContain('node_1_1["13 - 9 = 4 (left: 4 4 10)<br/>score 7.5"]');
    expect(mermaid).toContain('root --> node_1_1');
    expect(mermaid).toContain('node_1_1 --> node_2_1');
    expect(mermaid).toContain('class node_2_1 terminal');
    expect(mermaid).toContain('class node_1_2 pruned');
    expect(mermaid).toContain('class root,node_1_1 highlight');
  });

  it('escapes quotes and angle brackets and cuts long labels in Mermaid', () => {
    const tree = new ThoughtTree({ problem: 'say "hi" <b>' + 'x'.repeat(100) });
    const line = tree.toMermaid({ maxLabelLength: 20 }).split('\n')[1]!;
    expect(line).toBe('  root["say #quot;hi#quot; #lt;b#gt;xxxxxxx…"]');
  });

  it('renames ids that Mermaid cannot take', () => {
    const tree = ThoughtTree.fromJSON({
      ...new ThoughtTree({ problem: 'p' }).toJSON(),
      rootId: 'end',
      nodes: { end: { id: 'end', parentId: null, childrenIds: [], depth: 0, content: 'p', evaluation: null, status: 'pending', metadata: {} } },
      searchState: { currentDepth: 0, frontier: [], bestPath: [] },
    });
    expect(tree.toMermaid()).toContain('  n0["p"]');
  });

  it('draws Graphviz DOT with escaped labels and styles', () => {
    const tree = new ThoughtTree({ problem: 'a "quoted" \\ problem' });
    tree.markTerminal(tree.addChild('root', { content: 'line one\nline two' }).id);
    const dot = tree.toDot({ rankdir: 'LR', highlight: ['node_1_1'] });
    expect(dot.split('\n')[0]).toBe('digraph ThoughtTree {');
    expect(dot).toContain('rankdir=LR;');
    expect(dot).toContain('"root" [label="a \\"quoted\\" \\\\ problem", color="#4a7bd0"];');
    expect(dot).toContain('"node_1_1" [label="line one line two", color="#2f9e44", style="filled", fillcolor="#e9f8ec", penwidth=3];');
    expect(dot).toContain('"root" -> "node_1_1";');
    expect(dot.trim().endsWith('}')).toBe(true);
  });
});
