import { describe, expect, it } from 'vitest';
import { bestFirst, bfs, dfs, Explorer, mcts, ThoughtTree, type SearchEvent } from '../../src/index.js';
import { SCANNED_BEAM } from '../../src/search/strategies/bfs.js';
import { scriptedRoles } from './fixtures.js';

const contents = (nodes: { content: string }[]) => nodes.map((n) => n.content);

describe('bfs', () => {
  it('expands the beam level by level, keeps the best two and prunes the rest', async () => {
    const roles = scriptedRoles();
    const explorer = new Explorer({ ...roles, strategy: bfs({ beamWidth: 2 }), maxDepth: 2, pruningThreshold: 3 });
    const result = await explorer.run('R');
    // Level 1: C scores 2 < 3 and is pruned; the beam is B then A (by score). Level 2 expands the beam in that order.
    expect(roles.expanded).toEqual(['R', 'B', 'A']);
    expect(roles.evaluated).toEqual([['A', 'B', 'C'], ['B1', 'B2', 'A1', 'A2']]);
    const status = Object.fromEntries([...result.tree.all()].map((n) => [n.content, n.status]));
    expect(status).toEqual({ R: 'expanded', A: 'expanded', B: 'expanded', C: 'pruned', B1: 'pruned', B2: 'terminal', A1: 'terminal', A2: 'pruned' });
    expect(contents(result.bestPath)).toEqual(['R', 'B', 'B2']);
    expect(result.stopReason).toBe('max_depth');
    expect(result.tree.node('node_2_2').content).toBe('B2');
  });

  it('keeps generation order among equal scores', async () => {
    const roles = scriptedRoles({ R: ['x', 'y', 'z'] }, { x: 5, y: 5, z: 5 });
    const events: string[][] = [];
    const explorer = new Explorer({ ...roles, strategy: bfs({ beamWidth: 2 }), maxDepth: 1 });
    explorer.on('search.step', (e) => events.push(e.frontier));
    const result = await explorer.run('R');
    expect(events).toEqual([['node_1_1', 'node_1_2']]);
    expect(result.tree.node('node_1_3').status).toBe('pruned');
  });

  it('samples the beam reproducibly from the seed', async () => {
    const pick = async (seed: number) => {
      const roles = scriptedRoles({ R: ['a', 'b', 'c', 'd', 'e', 'f'] }, { a: 9, b: 8, c: 7, d: 6, e: 5, f: 4 });
      const steps: string[][] = [];
      const explorer = new Explorer({ ...roles, strategy: bfs({ beamWidth: 3, selection: 'sample' }), maxDepth: 1, branchingFactor: 6, seed });
      explorer.on('search.step', (e) => steps.push(e.frontier));
      await explorer.run('R');
      return steps[0];
    };
    expect(await pick(7)).toEqual(await pick(7));
    expect(await pick(7)).toHaveLength(3);
  });

  // Beams of up to SCANNED_BEAM states are looked up by a scan, wider ones by a set: both sides of that line.
  it.each([3, SCANNED_BEAM, SCANNED_BEAM + 1, 30])('prunes exactly the candidates outside a beam of %i', async (beamWidth) => {
    const names = Array.from({ length: 40 }, (_, i) => `c${i}`);
    const roles = scriptedRoles({ R: names }, Object.fromEntries(names.map((name, i) => [name, (i * 7) % 10])));
    const steps: string[][] = [];
    const explorer = new Explorer({ ...roles, strategy: bfs({ beamWidth }), maxDepth: 1, branchingFactor: 40, pruningThreshold: 0 });
    explorer.on('search.step', (e) => steps.push(e.frontier));
    const result = await explorer.run('R');
    const level = result.tree.children(result.tree.rootId);
    expect(level.filter((n) => n.status === 'terminal').map((n) => n.id)).toEqual([...steps[0]!].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })));
    expect(steps[0]).toHaveLength(beamWidth);
    expect(level.filter((n) => n.status === 'pruned')).toHaveLength(40 - beamWidth);
  });

  it('resumes a tree whose frontier of 200,000 nodes is too many to spread into Math.min', async () => {
    const tree = new ThoughtTree({ problem: 'R' });
    for (let i = 0; i < 200_000; i++) tree.addChild(tree.rootId, { content: `c${i}` });
    const expanded: string[] = [];
    const generator = { async generate({ parent }: { parent: { content: string } }) { expanded.push(parent.content); return []; } };
    const result = await new Explorer({ generator, evaluator: scriptedRoles().evaluator, strategy: bfs({ beamWidth: 2 }), maxDepth: 2 }).run(tree);
    expect(expanded).toHaveLength(200_000);
    expect(result.stopReason).toBe('search_exhausted');
  });

  it('stops at the first solution', async () => {
    const roles = scriptedRoles();
    const explorer = new Explorer({ ...roles, strategy: bfs({ beamWidth: 2 }), maxDepth: 2, isSolution: (n) => n.content === 'B' });
    const result = await explorer.run('R');
    expect(result.stopReason).toBe('solution_found');
    expect(contents(result.solutions)).toEqual(['B']);
    expect(contents(result.bestPath)).toEqual(['R', 'B']);
    expect(roles.expanded).toEqual(['R']);
  });

  it('reports search_exhausted when every candidate is pruned', async () => {
    const roles = scriptedRoles({ R: ['low'] }, { low: 1 });
    const result = await new Explorer({ ...roles, maxDepth: 3 }).run('R');
    expect(result.stopReason).toBe('search_exhausted');
    expect(contents(result.bestPath)).toEqual(['R']);
  });
});

describe('dfs', () => {
  it('descends best child first, marks leaves at maxDepth terminal and backtracks', async () => {
    const roles = scriptedRoles();
    const visited: string[] = [];
    const explorer = new Explorer({ ...roles, strategy: dfs(), maxDepth: 2, pruningThreshold: 3 });
    explorer.on('node.terminal', (e) => visited.push(e.nodeId));
    const result = await explorer.run('R');
    expect(roles.expanded).toEqual(['R', 'B', 'A']);
    // B's children best first (B2 9, B1 6), then A's (A1 7, A2 4).
    expect(visited.map((id) => result.tree.node(id).content)).toEqual(['B2', 'B1', 'A1', 'A2']);
    // Back from B2, B1, B, A1, A2 and A.
    expect(result.stats.totalBacktracks).toBe(6);
    expect(result.stopReason).toBe('search_exhausted');
  });

  it('stops as soon as a solution is found, with the backtracks so far', async () => {
    const roles = scriptedRoles();
    const result = await new Explorer({ ...roles, strategy: dfs(), maxDepth: 2, isSolution: (n) => n.content === 'A1' }).run('R');
    expect(result.stopReason).toBe('solution_found');
    expect(contents(result.bestPath)).toEqual(['R', 'A', 'A1']);
    expect(result.stats.totalBacktracks).toBe(3);
  });

  it('stops after maxStates expansions', async () => {
    const roles = scriptedRoles();
    const result = await new Explorer({ ...roles, strategy: dfs({ maxStates: 2 }), maxDepth: 3 }).run('R');
    expect(roles.expanded).toEqual(['R', 'B']);
    expect(result.stopReason).toBe('max_states');
  });
});

describe('bestFirst', () => {
  it('always expands the best pending node in the whole tree', async () => {
    const roles = scriptedRoles();
    const terminal: string[] = [];
    const explorer = new Explorer({ ...roles, strategy: bestFirst(), maxDepth: 2, pruningThreshold: 3 });
    explorer.on('node.terminal', (e) => terminal.push(e.nodeId));
    const result = await explorer.run('R');
    expect(roles.expanded).toEqual(['R', 'B', 'A']);
    expect(terminal.map((id) => result.tree.node(id).content)).toEqual(['B2', 'B1', 'A1', 'A2']);
    expect(contents(result.bestPath)).toEqual(['R', 'B', 'B2']);
  });

  it('stops after maxStates expansions', async () => {
    const roles = scriptedRoles();
    const result = await new Explorer({ ...roles, strategy: bestFirst({ maxStates: 1 }), maxDepth: 3 }).run('R');
    expect(roles.expanded).toEqual(['R']);
    expect(result.stopReason).toBe('max_states');
  });
});

describe('mcts', () => {
  it('selects by UCT, expands, backpropagates and reports the most visited path', async () => {
    const roles = scriptedRoles();
    const explorer = new Explorer({ ...roles, strategy: mcts({ iterations: 3 }), maxDepth: 2, pruningThreshold: 3 });
    const events: SearchEvent[] = [];
    explorer.on('event', (e) => events.push(e));
    const result = await explorer.run('R');
    // 1: expand R, visit A (first unvisited). 2: visit B (unvisited), expand it, visit B1.
    // 3: B's UCT (0.6 + √2·√(ln 2)) beats A's (0.5 + same), B2 is unvisited: mark it terminal.
    expect(roles.expanded).toEqual(['R', 'B']);
    expect(events.filter((e) => e.type === 'node.terminal').map((e) => result.tree.node((e as { nodeId: string }).nodeId).content)).toEqual(['B2']);
    expect(contents(result.bestPath)).toEqual(['R', 'B', 'B2']);
    expect(result.stopReason).toBe('iterations');
  });

  it('picks the best mean instead when asked', async () => {
    const roles = scriptedRoles();
    const result = await new Explorer({ ...roles, strategy: mcts({ iterations: 3, finalAnswer: 'best-mean' }), maxDepth: 2 }).run('R');
    expect(contents(result.bestPath)).toEqual(['R', 'B', 'B2']);
  });

  it('reports a found solution as the best path', async () => {
    const roles = scriptedRoles();
    const result = await new Explorer({ ...roles, strategy: mcts({ iterations: 10 }), maxDepth: 2, isSolution: (n) => n.content === 'B1' }).run('R');
    expect(result.stopReason).toBe('solution_found');
    expect(contents(result.bestPath)).toEqual(['R', 'B', 'B1']);
  });
});
