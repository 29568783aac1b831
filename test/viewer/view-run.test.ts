// viewRun and renderRunHtml without a browser: what the viewer takes from each kind of recorded
// run (nodes, best path, calls in lanes, stop reason, the calls behind each node), and a page that
// stays inert whatever the runs' thoughts say.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { bfs, callModel, Explorer, InMemoryEventStore, type LanguageModel, type ThoughtEvaluator, type ThoughtGenerator } from '@tot/core';
import { ChainOfThoughtNode } from '@tot/core/cot';
import { Deliberation, llmHost, type DeliberationAgent } from '@tot/core/deliberation';
import { SessionEngine } from '@tot/core/sessions';
import { mockModel } from '@tot/core/testing';
import { renderRunHtml, viewRun, type RunView, type ViewCall, type ViewNode } from '@tot/core/viewer';
import { parseList } from '../../examples/graph-of-thoughts/sorting.js';
import { COT_REPLIES, ESSAY_PARAGRAPHS, HOSTILE, readAll, recordAll, recordCrashedAndResumedSearch, recordHostileSearch, type FixtureKind, type RecordedRun } from './fixtures/runs.js';

let runs: Record<FixtureKind, RecordedRun>;
beforeAll(async () => {
  runs = await recordAll();
}, 60_000);

/** Calls in one lane that are in flight at the same moment (strictly overlapping intervals). */
function clashes(calls: readonly ViewCall[]): [ViewCall, ViewCall][] {
  const out: [ViewCall, ViewCall][] = [];
  for (let i = 0; i < calls.length; i++) {
    for (let j = i + 1; j < calls.length; j++) {
      const a = calls[i]!;
      const b = calls[j]!;
      if (a.lane === b.lane && a.start < b.end && b.start < a.end) out.push([a, b]);
    }
  }
  return out;
}

/** A call's prompt: its one message's text, or each message's role and text. */
function promptOf(view: RunView, index: number): string {
  const messages = view.calls[index]!.messages!;
  return messages.length === 1 ? view.texts[messages[0]!.text]! : messages.map((m) => `[${m.role}]\n${view.texts[m.text]}`).join('\n\n');
}
const messagesOf = (view: RunView, index: number) => view.calls[index]!.messages!.map((m) => ({ role: m.role, content: view.texts[m.text]! }));
const outputsOf = (view: RunView, index: number) => view.calls[index]!.outputs!.map((i) => view.texts[i]!);

/** Every node names the calls behind it, or says why there are none; every index is a call. */
function expectEveryNodeAccounted(view: RunView): void {
  for (const n of view.nodes) {
    expect(Boolean(n.madeBy?.length || n.from || n.noCall || n.prompt), n.id).toBe(true);
    for (const i of [...(n.madeBy ?? []), ...(n.judgedBy ?? [])]) expect(view.calls[i], n.id).toBeDefined();
  }
  // Each distinct text once, and every reference a text.
  expect(new Set(view.texts).size).toBe(view.texts.length);
  for (const c of view.calls) for (const i of [...(c.messages ?? []).map((m) => m.text), ...(c.outputs ?? [])]) expect(view.texts[i]).toBeTypeOf('string');
}

/** The best path walks from a root down parent links, each node a child of the one before. */
function expectLinkedFromRoot(view: RunView): void {
  const byId = new Map(view.nodes.map((n) => [n.id, n]));
  const path = view.bestPath.map((id) => byId.get(id));
  expect(path.every(Boolean)).toBe(true);
  expect(path[0]!.parents).toEqual([]);
  for (let i = 1; i < path.length; i++) expect(path[i]!.parents).toContain(path[i - 1]!.id);
}

describe('viewRun', () => {
  it('a Game of 24 search: every node of the tree, the best path from the root to a solution, the calls in lanes', () => {
    const run = runs.search as RecordedRun & { stats: { totalNodes: number; llmCalls: number } };
    const view = viewRun(run.events);

    expect(view.kind).toBe('search');
    expect(view.runId).toBe(run.runId);
    expect(view.problem).toBe('4 5 6 10');
    expect(view.stopReason).toBe('max_depth');
    expect(view.nodes).toHaveLength(run.stats.totalNodes);
    expect(new Set(view.nodes.map((n) => n.id)).size).toBe(view.nodes.length);
    // Parents before children.
    const seen = new Set<string>();
    for (const n of view.nodes) {
      for (const p of n.parents) expect(seen.has(p)).toBe(true);
      seen.add(n.id);
    }
    expectLinkedFromRoot(view);
    expect(view.bestPath).toHaveLength(5);
    const leaf = view.nodes.find((n) => n.id === view.bestPath.at(-1))!;
    expect(leaf.status).toBe('solution');
    expect(leaf.content).toBe('Answer: (4 * 5) + (10 - 6) = 24');
    expect(view.bestPath.at(-1)).toBe(run.bestLeaf);
    // Only the beam goes on: everything else at a level is pruned, and drawn so.
    expect(view.nodes.filter((n) => n.status === 'pruned').length).toBeGreaterThan(0);
    // One call per generation and one per evaluated candidate, as the run counted them.
    expect(view.calls).toHaveLength(run.stats.llmCalls);
    expect(view.summary['model calls']).toBe(run.stats.llmCalls);
    expect(view.calls.every((c) => c.outcome === 'completed' && c.end >= c.start)).toBe(true);
    expect(new Set(view.calls.map((c) => c.tag))).toEqual(new Set(['generator', 'evaluator']));
    expect(view.tokens.at(-1)!.total).toBe(view.calls.reduce((n, c) => n + c.inputTokens + c.outputTokens, 0));
  });

  it('ties each search node to the generator call made for its parent and the evaluator call made for it (the replay sends the state as the prompt)', () => {
    const view = viewRun(runs.search.events);
    const byId = new Map(view.nodes.map((n) => [n.id, n]));
    // The replay's roles send a node's state: every line from the root down to it, each ending with a newline.
    const stateOf = (id: string): string => {
      const n = byId.get(id)!;
      return n.parents.length === 0 ? '' : `${stateOf(n.parents[0]!)}${n.content}\n`;
    };
    const root = view.nodes[0]!;
    expect(root.madeBy).toBeUndefined();
    expect(root.noCall).toMatch(/problem/);
    const byParent = new Map<string, number>();
    for (const n of view.nodes.slice(1)) {
      expect(n.madeBy, n.id).toHaveLength(1);
      const made = n.madeBy![0]!;
      expect(view.calls[made]!.tag).toBe('generator');
      expect(promptOf(view, made), n.id).toBe(stateOf(n.parents[0]!) || '(start)');
      expect(n.judgedBy, n.id).toHaveLength(1);
      expect(view.calls[n.judgedBy![0]!]!.tag).toBe('evaluator');
      expect(promptOf(view, n.judgedBy![0]!), n.id).toBe(stateOf(n.id));
      // Siblings share their parent's call; no two parents share one.
      expect(byParent.get(n.parents[0]!) ?? made).toBe(made);
      byParent.set(n.parents[0]!, made);
      expect(outputsOf(view, made)).toEqual(['ok']);
      // The evaluator's words stay with the node.
      expect(n.details!.reasoning).toMatch(/^logged value|^not in the log/);
    }
    expect(new Set(byParent.values()).size).toBe(byParent.size);
    // Every evaluator call scored exactly one node.
    const judged = view.nodes.flatMap((n) => n.judgedBy ?? []);
    expect(new Set(judged).size).toBe(judged.length);
    expectEveryNodeAccounted(view);
    // The replay's generator calls all answer 'ok': stored once.
    expect(view.texts.filter((t) => t === 'ok')).toHaveLength(1);
  });

  it('ties each child to its own sample when the generator asks for n samples, and a repaired request to both its calls', async () => {
    // Not native n: callModel emulates n = 2 as two calls tagged sampleIndex 0 and 1. The second
    // parent of each step first gets a reply it "cannot parse" and asks again (a repair turn).
    const model = mockModel((r) => (r.messages.length > 1 ? `fixed ${r.messages[0]!.content}` : `idea ${r.tags?.sampleIndex ?? '-'} after ${r.messages[0]!.content}`));
    const generator: ThoughtGenerator = {
      async generate({ parent }, options = {}) {
        const m = options.runModel!(model);
        const messages = [{ role: 'user' as const, content: `extend ${parent.id}` }];
        if (parent.id.endsWith('_2')) {
          const first = await callModel(m, { messages, tags: { role: 'generator' } });
          const again = await callModel(m, { messages: [...messages, { role: 'assistant', content: first.outputs[0]! }, { role: 'user', content: 'That was not a list: try again.' }], tags: { role: 'generator' } });
          return [{ content: again.outputs[0]! }];
        }
        const { outputs } = await callModel(m, { messages, n: 2, tags: { role: 'generator' } });
        return outputs.map((content) => ({ content }));
      },
    };
    const evaluator: ThoughtEvaluator = {
      async evaluate({ candidates }, options = {}) {
        await callModel(options.runModel!(model), { messages: [{ role: 'user', content: `value ${candidates.map((c) => c.id).join(' ')}` }], tags: { role: 'evaluator' } });
        return { evaluations: candidates.map((c, i) => ({ nodeId: c.id, score: 5 + i, confidence: 1, reasoning: 'r' })), ranking: [], pruningSuggestions: [] };
      },
    };
    const store = new InMemoryEventStore();
    await new Explorer({ generator, evaluator, strategy: bfs({ beamWidth: 2 }), maxDepth: 3, branchingFactor: 2, pruningThreshold: 0, concurrency: 4 }).run('p', { store, runId: 'samples' });
    const view = viewRun(await readAll(store, 'samples'));
    const byId = new Map(view.nodes.map((n) => [n.id, n]));
    let samples = 0;
    let repaired = 0;
    for (const n of view.nodes.slice(1)) {
      const parent = n.parents[0]!;
      if (parent.endsWith('_2')) {
        // Both calls of the repaired request: the first and its repair turn.
        expect(n.madeBy, n.id).toHaveLength(2);
        expect(messagesOf(view, n.madeBy![1]!).slice(0, 2)).toEqual([...messagesOf(view, n.madeBy![0]!), { role: 'assistant', content: outputsOf(view, n.madeBy![0]!)[0] }]);
        expect(outputsOf(view, n.madeBy![1]!)).toEqual([n.content]);
        repaired += 1;
      } else {
        // Its own sample's call, whose one output is the node.
        expect(n.madeBy, n.id).toHaveLength(1);
        expect(outputsOf(view, n.madeBy![0]!)).toEqual([n.content]);
        expect(promptOf(view, n.madeBy![0]!)).toBe(`extend ${parent}`);
        samples += 1;
      }
      // One evaluator call per step, shared by the step's nodes, naming them.
      expect(n.judgedBy, n.id).toHaveLength(1);
      expect(promptOf(view, n.judgedBy![0]!).split(' ')).toContain(n.id);
    }
    expect(samples).toBeGreaterThan(4);
    expect(repaired).toBeGreaterThan(1);
    expect(byId.size).toBe(view.nodes.length);
    expectEveryNodeAccounted(view);
  });

  it('says so, rather than guess, when the log cannot tell which call made a node', async () => {
    // The first parent of each step calls the model, the second does not: one call for two parents.
    const model = mockModel('ok');
    const generator: ThoughtGenerator = {
      async generate({ parent }, options = {}) {
        if (!parent.id.endsWith('_2')) await callModel(options.runModel!(model), { messages: [{ role: 'user', content: parent.id }], tags: { role: 'generator' } });
        return [{ content: `a ${parent.id}` }, { content: `b ${parent.id}` }];
      },
    };
    const evaluator: ThoughtEvaluator = {
      async evaluate({ candidates }) {
        return { evaluations: candidates.map((c) => ({ nodeId: c.id, score: 5, confidence: 1, reasoning: 'r' })), ranking: [], pruningSuggestions: [] };
      },
    };
    const store = new InMemoryEventStore();
    await new Explorer({ generator, evaluator, strategy: bfs({ beamWidth: 2 }), maxDepth: 2, branchingFactor: 2, pruningThreshold: 0 }).run('p', { store, runId: 'unclear' });
    const view = viewRun(await readAll(store, 'unclear'));
    const depth = (n: ViewNode) => Number(n.details!.depth);
    // Depth 1: one parent, one call: tied. Depth 2: two parents, one call: not tied, and said.
    for (const n of view.nodes.filter((x) => depth(x) === 1)) expect(promptOf(view, n.madeBy![0]!)).toBe('root');
    const second = view.nodes.filter((x) => depth(x) === 2);
    expect(second.length).toBe(4);
    for (const n of second) {
      expect(n.madeBy).toBeUndefined();
      expect(n.noCall).toBe('The log does not say which of the 1 generator calls of its step made it.');
    }
    // No evaluator call at all: nothing scored by a call.
    expect(view.nodes.some((n) => n.judgedBy)).toBe(false);
  });

  it('never puts two calls in flight at once in one lane, and uses no more lanes than calls were ever in flight at once (the search run)', () => {
    const { calls } = viewRun(runs.search.events);
    expect(clashes(calls)).toEqual([]);
    // The greedy assignment is optimal: the lanes used equal the most calls in flight at any moment.
    const peak = Math.max(...calls.map((c) => calls.filter((d) => d === c || (d.start <= c.start && c.start < d.end)).length));
    expect(Math.max(...calls.map((c) => c.lane)) + 1).toBe(peak);
    expect(peak).toBeGreaterThan(1);
  });

  it('lanes hold for any interleaving of calls (property)', () => {
    const call = fc.record({ start: fc.integer({ min: 0, max: 1000 }), length: fc.integer({ min: 0, max: 300 }), completes: fc.boolean() });
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 40 }), (specs) => {
        const t0 = 1_000_000;
        const timed: { at: number; event: Record<string, unknown> }[] = [];
        specs.forEach((s, i) => {
          timed.push({ at: t0 + s.start, event: { type: 'llm.requested', callId: `c${i}`, request: { messages: [], tags: { role: 'x' } } } });
          if (s.completes) timed.push({ at: t0 + s.start + s.length, event: { type: 'llm.completed', callId: `c${i}`, charged: { inputTokens: 1, outputTokens: 1 } } });
        });
        // The log's order: by time, a call's request before its completion.
        timed.sort((a, b) => a.at - b.at);
        const events = [{ type: 'run.started', runner: 'synthetic', problem: 'p', at: t0 }, ...timed.map((t) => ({ ...t.event, at: t.at }))].map((e, seq) => ({ ...e, runId: 'r', seq }));
        const view = viewRun(events as never);
        expect(view.calls).toHaveLength(specs.length);
        expect(clashes(view.calls)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('an operation graph: the graph\'s thoughts and its input, the best path from the input to the solved thought', () => {
    const run = runs.graph as RecordedRun & { thoughts: number; solvedIds: string[] };
    const view = viewRun(run.events);
    expect(view.kind).toBe('graph');
    expect(view.stopReason).toBe('completed');
    expect(view.nodes).toHaveLength(run.thoughts + 1);
    expect(view.nodes[0]!.id).toBe('input.0');
    expectLinkedFromRoot(view);
    expect(view.bestPath[0]).toBe('input.0');
    expect(view.bestPath.at(-1)).toBe(run.bestLeaf);
    expect(run.solvedIds).toContain(view.bestPath.at(-1));
    expect(view.nodes.filter((n) => n.status === 'solution').map((n) => n.id)).toEqual(run.solvedIds);
    // A thought's content is its state.
    const leaf = view.nodes.find((n) => n.id === view.bestPath.at(-1))!;
    expect(JSON.parse(leaf.content).current).toEqual([...JSON.parse(leaf.content).input].sort((a: number, b: number) => a - b));
    expect(view.calls.length).toBe(view.summary['model calls']);
  });

  it('ties each graph thought to its operation\'s call and, when the call answered n times, to its own output; passed-on thoughts to the thought they carry', () => {
    const view = viewRun(runs.graph.events);
    const byId = new Map(view.nodes.map((n) => [n.id, n]));
    const state = (n: ViewNode) => JSON.parse(n.content) as { input: number[]; current: number[] };
    expect(byId.get('input.0')!.noCall).toMatch(/input/);
    let picked = 0;
    for (const n of view.nodes) {
      if (n.madeBy) {
        expect(n.madeBy, n.id).toHaveLength(1);
        // The call is tagged with the thought's operation.
        expect(view.calls[n.madeBy[0]!]!.tag, n.id).toBe(n.kind);
        if (n.pick !== undefined) {
          // Its list is the one its own output holds.
          expect(parseList(outputsOf(view, n.madeBy[0]!)[n.pick]!), n.id).toEqual(state(n).current);
          picked += 1;
        }
        // The prompt shows its parents' lists.
        for (const p of n.parents) expect(promptOf(view, n.madeBy[0]!)).toContain(`[${state(byId.get(p)!).current.join(', ')}]`);
      }
      if (n.from) {
        // A local operation passed its parent's state on: the viewer shows the call that made that state.
        const origin = byId.get(n.from)!;
        expect(n.madeBy).toBeUndefined();
        expect(state(n)).toEqual(state(origin));
        expect(Boolean(origin.madeBy || origin.noCall)).toBe(true);
        expect(origin.from).toBeUndefined();
      }
    }
    // Every sort, merge and improve thought is one output of its call (5 + 5 + 10 + 10).
    expect(picked).toBe(30);
    // The scores are on passed-on thoughts, whose calls are their origins'.
    const scored = view.nodes.filter((n) => n.score !== undefined);
    expect(scored.length).toBeGreaterThan(0);
    expect(scored.every((n) => n.from && byId.get(n.from)!.madeBy)).toBe(true);
    // The best path's last thought (the check) carries an improvement's state, made by the improve call.
    const leaf = byId.get(view.bestPath.at(-1)!)!;
    expect(byId.get(leaf.from!)!.kind).toBe('improve');
    expectEveryNodeAccounted(view);
  });

  it('a fractal run: every frame, each with its own think and eval calls, and as the best path the frames the answer was built from', () => {
    const run = runs.fractal as RecordedRun & { frames: number; llmCalls: number; result: string; failedFrame: string };
    const view = viewRun(run.events);
    expect(view.kind).toBe('fractal');
    expect(view.stopReason).toBe('completed');
    expect(view.nodes).toHaveLength(run.frames);
    expect(view.nodes).toHaveLength(7);
    const byId = new Map(view.nodes.map((n) => [n.id, n]));
    const goal = (n: ViewNode) => /^Goal: (.*)$/m.exec(n.content)![1]!;

    // The answer's frames: the root, its plan's parts and the first part's two sub-goals; not the
    // frame that failed (its redo is on the path instead).
    expect(view.bestPath).toEqual(['f0', 'f1', 'f2', 'f3', 'f5', 'f6']);
    expect(view.bestPath).not.toContain(run.failedFrame);
    expect(byId.get(run.failedFrame)!.status).toBe('failed');
    expect(byId.get('f0')!.status).toBe('solution');
    // Parents before children, each frame's parent on the path.
    view.bestPath.forEach((id, i) => {
      const n = byId.get(id)!;
      if (i === 0) expect(n.parents).toEqual([]);
      else expect(view.bestPath.slice(0, i)).toContain(n.parents[0]);
    });
    // The answer is exactly the path's leaves' results, in order: they made it.
    const leaves = view.bestPath.filter((id) => !view.bestPath.some((other) => byId.get(other)!.parents.includes(id)));
    expect(leaves.map((id) => ESSAY_PARAGRAPHS[goal(byId.get(id)!)]).join(' ')).toBe(run.result);
    expect(byId.get('f0')!.content).toContain(`Result: ${run.result}`);

    // Every call of the run is one frame's, and every one of a frame's calls is about its goal.
    const all = view.nodes.flatMap((n) => n.madeBy ?? []);
    expect(all.sort((a, b) => a - b)).toEqual(view.calls.map((_, i) => i));
    expect(view.calls).toHaveLength(run.llmCalls);
    for (const n of view.nodes) {
      expect(n.madeBy!.length, n.id).toBeGreaterThan(0);
      for (const c of n.madeBy!) expect(messagesOf(view, c)[0]!.content, n.id).toContain(`Your goal: ${goal(n)}\n`);
      // Think first, then eval.
      expect(view.calls[n.madeBy![0]!]!.tag).toBe('think');
    }
    // The root thought once and decided five times (four sub-goals, then the answer).
    expect(byId.get('f0')!.madeBy!.map((c) => view.calls[c]!.tag)).toEqual(['think', 'eval', 'eval', 'eval', 'eval', 'eval']);
    expect(outputsOf(view, byId.get('f0')!.madeBy!.at(-1)!)).toEqual([JSON.stringify({ type: 'RETURN', description: run.result })]);
    // The failed frame: think's prose, and both repair turns, each resending the reply before it.
    const failed = byId.get(run.failedFrame)!.madeBy!;
    expect(failed).toHaveLength(3);
    for (let i = 1; i < 3; i++) expect(messagesOf(view, failed[i]!)[messagesOf(view, failed[i - 1]!).length]).toEqual({ role: 'assistant', content: outputsOf(view, failed[i - 1]!)[0] });
    expect(byId.get(run.failedFrame)!.content).toMatch(/Failed: INVALID_FORMAT/);
    expectEveryNodeAccounted(view);
  });

  it('a chain of thought: the thoughts in a chain, each with its call (and the repair it needed), the plan after each thought, the solution', () => {
    const run = runs['chain-of-thought'] as RecordedRun & { thoughts: number; llmCalls: number; solution: string };
    const view = viewRun(run.events);
    expect(view.kind).toBe('chain-of-thought');
    expect(view.stopReason).toBe('completed');
    expect(view.nodes).toHaveLength(run.thoughts);
    expect(view.bestPath).toEqual(['thought-1', 'thought-2', 'thought-3']);
    expectLinkedFromRoot(view);
    expect(view.nodes.at(-1)!.status).toBe('solution');
    expect(view.nodes.at(-1)!.content.trim()).toBe(run.solution);
    // Thought 2's first reply was prose: repaired by a second call that resent it.
    expect(view.nodes.map((n) => n.madeBy!.length)).toEqual([1, 2, 1]);
    expect(view.calls).toHaveLength(run.llmCalls);
    const [first, repair] = view.nodes[1]!.madeBy!;
    expect(outputsOf(view, first!)).toEqual([COT_REPLIES[1]]);
    expect(messagesOf(view, repair!)[1]).toEqual({ role: 'assistant', content: COT_REPLIES[1] });
    expect(outputsOf(view, repair!)).toEqual([COT_REPLIES[2]]);
    // Each thought's last call answered with it; each prompt names its thought's number.
    view.nodes.forEach((n, i) => {
      expect(outputsOf(view, n.madeBy!.at(-1)!)[0]).toContain(n.content.trim().split('\n')[0]!);
      expect(messagesOf(view, n.madeBy![0]!)[0]!.content).toContain(`This is thought ${i + 1}.`);
    });
    const plan = view.panels.find((p) => p.kind === 'plan');
    expect(plan?.kind === 'plan' && plan.versions.map((v) => v.thought)).toEqual([1, 2, 3]);
    expect(plan?.kind === 'plan' && plan.versions[1]!.steps.find((s) => s.description === '17 * 20')).toEqual({ description: '17 * 20', status: 'Done', depth: 1 });
    expect(view.panels.find((p) => p.kind === 'text')).toEqual({ kind: 'text', title: 'Solution', text: '17 * 23 = 391.' });
    expectEveryNodeAccounted(view);
  });

  it('a chain of thought whose thought could not be had: shown failed, with the calls it made', async () => {
    const store = new InMemoryEventStore();
    const result = await new ChainOfThoughtNode({ model: mockModel(['I think it is 4.', 'Really, 4.']), maxRepairs: 1 }).run('2 + 2?', { store, runId: 'cot-fails' });
    expect(result.stopReason).toBe('error');
    const view = viewRun(await readAll(store, 'cot-fails'));
    expect(view.nodes).toHaveLength(1);
    expect(view.nodes[0]).toMatchObject({ id: 'thought-1', status: 'failed', madeBy: [0, 1] });
    expect(view.nodes[0]!.content).toMatch(/^INVALID_FORMAT: /);
    expect(view.bestPath).toEqual([]);
  });

  it('a deliberation: each agent\'s output per round, the host\'s decisions and the report, the consensus trend and a heatmap per round', () => {
    const run = runs.deliberation as RecordedRun & { rounds: number; agentOutputs: number; consensusTrend: number[] };
    const view = viewRun(run.events);
    expect(view.kind).toBe('deliberation');
    expect(view.stopReason).toBe('converged');
    expect(view.nodes).toHaveLength(run.ownNodeCount);
    expect(view.nodes.filter((n) => n.kind === 'host')).toHaveLength(run.rounds);
    expect(view.bestPath).toEqual(['r1.host', 'r2.host', 'report']);
    expect(view.nodes.find((n) => n.id === 'report')!.status).toBe('solution');
    const panel = view.panels[0]!;
    expect(panel.kind).toBe('consensus');
    if (panel.kind !== 'consensus') return;
    expect(panel.trend).toEqual(run.consensusTrend);
    expect(panel.heatmaps.map((h) => h.round)).toEqual([1, 2]);
    for (const h of panel.heatmaps) {
      expect(h.labels).toEqual(['planner', 'critic']);
      expect(h.matrix.map((row) => row.length)).toEqual([2, 2]);
    }
    // Each agent's output is tied to its calls (by the round and participant tags on them), the
    // report to the reporter's; the similarity host made none, and says so.
    for (const n of view.nodes) {
      if (n.kind === 'host') {
        expect(n.madeBy).toBeUndefined();
        expect(n.noCall).toMatch(/similarity/);
        continue;
      }
      expect(n.madeBy!.length, n.id).toBeGreaterThan(0);
      for (const c of n.madeBy!) expect(view.calls[c]!.tag, n.id).toBe(n.kind === 'report' ? 'reporter' : n.kind);
    }
    // Every call is some node's.
    expect(view.nodes.flatMap((n) => n.madeBy ?? []).sort((a, b) => a - b)).toEqual(view.calls.map((_, i) => i));
    expectEveryNodeAccounted(view);
  });

  it('a GoT session: its thoughts, the validated branch\'s path as the best, the branches and the audit bar', () => {
    const run = runs['got-session'] as RecordedRun & { thoughts: number; branches: number; winner: string };
    const view = viewRun(run.events);
    expect(view.kind).toBe('got-session');
    expect(view.runId).toBe(run.runId);
    expect(view.nodes).toHaveLength(run.thoughts);
    expectLinkedFromRoot(view);
    expect(view.bestPath.at(-1)).toBe(run.bestLeaf);
    expect(view.nodes.find((n) => n.id === run.bestLeaf)!.status).toBe('solution');
    // The branch whose plan had no rollback was rejected: its thought is drawn failed.
    expect(view.nodes.filter((n) => n.status === 'failed')).toHaveLength(1);
    const panel = view.panels[0]!;
    expect(panel.kind).toBe('branches');
    if (panel.kind !== 'branches') return;
    expect(panel.branches).toHaveLength(run.branches);
    expect(panel.branches.find((b) => b.id === run.winner)!.state).toBe('validated');
    expect(panel.auditBar).toContain('Token Budget');
    expect(view.tokenBudget).toBe(5000);
    // Its thoughts were written through the session: no model call, said plainly.
    expect(view.calls).toEqual([]);
    for (const n of view.nodes) {
      expect(n.madeBy).toBeUndefined();
      expect(n.noCall).toMatch(/^Written through the session by writer .+ records no model call for it\.$/);
      expect(n.details).not.toHaveProperty('model calls');
    }
  });

  it('a GoT session: a thought made by model calls (runParallel) shows their count and tokens, and says only their text is not recorded', async () => {
    const store = new InMemoryEventStore();
    const session = await new SessionEngine({ store, model: mockModel('{}') }).startSession({ goal: 'Cache loadConfig()', successCriteria: ['npm test passes'] });
    const root = await session.addThought({ role: 'planner', content: 'Cache it behind getConfig().' });
    const made = await session.addThought({ role: 'critic', content: 'Two call sites reload on SIGHUP.', parentIds: [root.id], tokens: 300, modelCalls: 2 });
    const view = viewRun(await readAll(store, session.id));
    const hand = view.nodes.find((n) => n.id === root.id)!;
    const byModel = view.nodes.find((n) => n.id === made.id)!;
    expect(byModel.details).toMatchObject({ tokens: '300', 'model calls': '2' });
    expect(byModel.noCall).toMatch(/^Made by 2 model calls in runParallel \(300 tokens\)/);
    expect(byModel.noCall).not.toMatch(/no model call/);
    expect(hand.details).not.toHaveProperty('model calls');
    expect(hand.noCall).toMatch(/records no model call for it\.$/);
  });

  it('a deliberation: the host\'s calls are those tagged with its id, never those of an agent that called its model and then failed', async () => {
    const model = mockModel('not what I wanted');
    // An agent that calls its model, then fails: it has no output this round, but the calls are its own.
    const failing: DeliberationAgent = {
      id: 'failing',
      async respond(ctx) {
        await ctx.generate(model, { messages: [{ role: 'user', content: 'try' }] });
        throw new Error('could not parse the reply');
      },
    };
    const steady: DeliberationAgent = { id: 'steady', respond: () => ({ content: 'steady' }) };
    const moderatorModel = mockModel("{'action': 'converge', 'reason': 'agreed'}");
    const events: unknown[] = [];
    const deliberate = (host: ConstructorParameters<typeof Deliberation>[0]['host']) => new Deliberation({ agents: [failing, steady], host, parallelFirstRound: false }).run('q', { onEvent: (e) => events.push(e) });
    // A host with no model: no call of its own.
    await deliberate({ decide: () => ({ action: 'converge', reason: 'done', nextAgents: [], constraints: { mustAddress: [], avoid: [] }, directives: [] }) });
    let view = viewRun(events as never);
    let host = view.nodes.find((n) => n.kind === 'host')!;
    expect(host.madeBy).toBeUndefined();
    expect(host.noCall).toMatch(/No model call of the host/);
    expect(view.nodes.some((n) => n.kind === 'failing')).toBe(false);
    // A model host with an id of its own: exactly its calls.
    events.length = 0;
    await deliberate(llmHost({ id: 'moderator', model: moderatorModel, turn: () => 'Decide.' }));
    view = viewRun(events as never);
    host = view.nodes.find((n) => n.kind === 'host')!;
    expect(host.madeBy).toHaveLength(1);
    expect(view.calls[host.madeBy![0]!]!.tag).toBe('moderator');
    expect(outputsOf(view, host.madeBy![0]!)).toEqual(["{'action': 'converge', 'reason': 'agreed'}"]);
  });

  it('a run that did not finish has no stop reason', () => {
    for (const kind of ['search', 'graph', 'deliberation', 'fractal', 'chain-of-thought'] as const) {
      const events = runs[kind].events.filter((e) => e.type !== 'run.finished');
      const view = viewRun(events);
      expect(view.stopReason, kind).toBeUndefined();
      expect('stopReason' in view, kind).toBe(false);
      expect(view.summary.stop, kind).toBe('not finished');
      // Its nodes are still shown.
      expect(view.nodes.length, kind).toBe(viewRun(runs[kind].events).nodes.length);
    }
  });

  it('takes a run\'s events as a store returns them or as the runner emitted them, alike', () => {
    const stored = runs.search.events;
    expect(viewRun(stored.map((e) => e.data) as never)).toEqual(viewRun(stored));
  });
});

describe('viewRun of a run that crashed and was resumed', () => {
  let run: Awaited<ReturnType<typeof recordCrashedAndResumedSearch>>;
  let view: RunView;
  let crashedAt: number;
  let resumedAt: number;
  beforeAll(async () => {
    run = await recordCrashedAndResumedSearch();
    view = viewRun(run.events);
    const t0 = (run.events[0]!.data as { at: number }).at;
    const resumed = run.events.findIndex((e) => e.type === 'run.resumed');
    crashedAt = (run.events[resumed - 1]!.data as { at: number }).at - t0;
    resumedAt = (run.events[resumed]!.data as { at: number }).at - t0;
  });

  it('the log holds calls the crash cut off, and the resumed run\'s own calls', () => {
    expect(run.events.filter((e) => e.type === 'run.resumed')).toHaveLength(1);
    expect(view.calls.filter((c) => c.outcome === 'open')).toHaveLength(run.concurrency);
    expect(view.calls.filter((c) => c.start >= resumedAt).length).toBeGreaterThan(run.concurrency);
  });

  it('ends each call the crash cut off at the crash (the log\'s last event before run.resumed), not at the end of the run', () => {
    const cut = view.calls.filter((c) => c.outcome === 'open');
    expect(cut.map((c) => c.end)).toEqual(cut.map(() => crashedAt));
    expect(view.interruptions).toEqual([{ crashedAt, resumedAt }]);
  });

  it('shows no more calls in flight at once than the run\'s concurrency', () => {
    expect(view.summary['max concurrent calls']).toBeLessThanOrEqual(run.concurrency);
    expect(view.summary['max concurrent calls']).toBe(Math.max(...view.calls.map((c) => c.lane)) + 1);
    expect(clashes(view.calls)).toEqual([]);
  });

  it('gives as wall time the span of its timeline, from the first start through the crash to the end', () => {
    const t0 = (run.events[0]!.data as { at: number }).at;
    const span = (run.events.at(-1)!.data as { at: number }).at - t0;
    expect(view.duration).toBe(span);
    expect(view.summary['wall ms']).toBe(Math.round(span));
    expect(Math.max(...view.calls.map((c) => c.end))).toBeLessThanOrEqual(view.duration);
    expect(view.summary).toMatchObject({ resumed: 1, 'calls cut off by a crash': run.concurrency });
  });
});

describe('renderRunHtml', () => {
  let hostile: RecordedRun;
  beforeAll(async () => {
    hostile = await recordHostileSearch();
  });

  const scriptTags = (html: string) => html.match(/<script\b[^>]*>/gi) ?? [];
  const runData = (html: string) => {
    const m = /<script type="application\/json" id="run-data">([\s\S]*?)<\/script>/.exec(html);
    expect(m).not.toBeNull();
    return JSON.parse(m![1]!) as RunView;
  };

  it('keeps thoughts that say </script><script>… inert: no other script element, and the data parses back to the view', () => {
    expect(hostile.events.some((e) => JSON.stringify(e.data).includes(HOSTILE))).toBe(true);
    const html = renderRunHtml(hostile.events, { title: hostile.title });

    // Exactly the page's two script elements: the run's data and the viewer.
    expect(scriptTags(html)).toEqual(['<script type="application/json" id="run-data">', '<script>']);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain('<!--');
    expect(html).not.toContain('\u2028');
    // The title is text.
    expect(html).toContain('<title>hostile &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>');

    const view = runData(html);
    expect(view).toEqual(JSON.parse(JSON.stringify(viewRun(hostile.events))));
    expect(view.nodes.filter((n) => n.content.includes(HOSTILE)).length).toBeGreaterThan(0);
    expect(view.nodes.some((n) => n.content.includes('\u2028'))).toBe(true);
  });

  it('escapes the same way for every kind of run', () => {
    for (const run of Object.values(runs)) {
      const html = renderRunHtml(run.events, { title: run.title });
      expect(scriptTags(html), run.kind).toHaveLength(2);
      expect(runData(html).nodes, run.kind).toHaveLength(viewRun(run.events).nodes.length);
    }
  });

  it('forbids every request with its Content-Security-Policy, and names nothing outside the page', () => {
    const html = renderRunHtml(hostile.events);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
    expect(csp).not.toBeNull();
    const directives = csp![1]!.split(';').map((d) => d.trim());
    expect(directives[0]).toBe("default-src 'none'");
    // Nothing may load or connect anywhere, no <base> may move the page, no form may post.
    expect(directives).toEqual(expect.arrayContaining(["base-uri 'none'", "form-action 'none'"]));
    expect(directives.some((d) => /^(connect|frame|font|media|object|worker|child|img)-src/.test(d))).toBe(false);
    // The CSP comes before anything that could load.
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<style'));
    // The only URL is the SVG namespace; no src, href or url() at all.
    expect(new Set(html.match(/https?:\/\/[^\s"'<>]*/g))).toEqual(new Set(['http://www.w3.org/2000/svg']));
    expect(html).not.toMatch(/\s(src|href)=/i);
    expect(html).not.toMatch(/url\(/i);
  });

  it('runs only its own inline script and applies only its own inline style: each allowed by its SHA-256, nothing inline else', () => {
    const html = renderRunHtml(hostile.events);
    const directives = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1]!.split(';').map((d) => d.trim());
    const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(directives).toContain(`script-src ${sha256(script)}`);
    expect(directives).toContain(`style-src ${sha256(style)}`);
    expect(html).not.toMatch(/unsafe-/);
    // No inline handler or style attribute in the page's markup: its script attaches its own listeners.
    expect(html).not.toMatch(/<[^>]*\s(on\w+|style)=/i);
  });

  it('stores a prompt sent many times once: the page grows with the distinct texts, not with the calls', async () => {
    const SYSTEM = `You are a careful solver. ${'Think step by step and check every step. '.repeat(500)}`;
    const model = mockModel('ok');
    const ask = (m: LanguageModel, content: string, role: string) => callModel(m, { messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content }], tags: { role } });
    const generator: ThoughtGenerator = {
      async generate({ parent }, options = {}) {
        await ask(options.runModel!(model), `extend ${parent.id}`, 'generator');
        return [0, 1, 2].map((i) => ({ content: `${parent.id}.${i}` }));
      },
    };
    const evaluator: ThoughtEvaluator = {
      async evaluate({ candidates }, options = {}) {
        await ask(options.runModel!(model), `value ${candidates.length}`, 'evaluator');
        return { evaluations: candidates.map((c) => ({ nodeId: c.id, score: 5, confidence: 1, reasoning: 'r' })), ranking: [], pruningSuggestions: [] };
      },
    };
    const store = new InMemoryEventStore();
    await new Explorer({ generator, evaluator, strategy: bfs({ beamWidth: 9 }), maxDepth: 3, branchingFactor: 3, pruningThreshold: 0 }).run('p', { store, runId: 'long-prompt' });
    const view = viewRun(await readAll(store, 'long-prompt'));
    expect(view.calls.length).toBeGreaterThan(15);
    expect(view.texts.filter((t) => t === SYSTEM)).toHaveLength(1);
    expect(view.calls.every((c) => view.texts[c.messages![0]!.text] === SYSTEM)).toBe(true);
    const html = renderRunHtml(await readAll(store, 'long-prompt'));
    expect(html.split(SYSTEM).length - 1).toBe(1);
    expect(html.length).toBeLessThan(SYSTEM.length + 60_000);
  });

  it('titles the page after the run by default, and refuses an unknown option', () => {
    const html = renderRunHtml(runs.search.events);
    expect(html).toContain('<title>search run: 4 5 6 10</title>');
    expect(() => renderRunHtml(runs.search.events, { colour: 'red' } as never)).toThrow(/colour/);
  });
});
