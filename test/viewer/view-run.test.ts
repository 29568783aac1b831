// viewRun and renderRunHtml without a browser: what the viewer takes from each kind of recorded
// run (nodes, best path, calls in lanes, stop reason), and a page that stays inert whatever the
// runs' thoughts say.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderRunHtml, viewRun, type RunView, type ViewCall } from '@tot/core/viewer';
import { HOSTILE, recordAll, recordHostileSearch, type FixtureKind, type RecordedRun } from './fixtures/runs.js';

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
  });

  it('a run that did not finish has no stop reason', () => {
    for (const kind of ['search', 'graph', 'deliberation'] as const) {
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
    // Inline style and script only; images only as data: URLs; nothing may connect anywhere.
    expect(directives).toEqual(expect.arrayContaining(["style-src 'unsafe-inline'", "script-src 'unsafe-inline'", 'img-src data:']));
    expect(directives.some((d) => /^(connect|frame|font|media|object|worker|child)-src/.test(d))).toBe(false);
    // The CSP comes before anything that could load.
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<style'));
    // The only URL is the SVG namespace; no src, href or url() at all.
    expect(new Set(html.match(/https?:\/\/[^\s"'<>]*/g))).toEqual(new Set(['http://www.w3.org/2000/svg']));
    expect(html).not.toMatch(/\s(src|href)=/i);
    expect(html).not.toMatch(/url\(/i);
  });

  it('titles the page after the run by default, and refuses an unknown option', () => {
    const html = renderRunHtml(runs.search.events);
    expect(html).toContain('<title>search run: 4 5 6 10</title>');
    expect(() => renderRunHtml(runs.search.events, { colour: 'red' } as never)).toThrow(/colour/);
  });
});
