import { foldChainOfThoughtEvents } from '../cot/chain-of-thought-node.js';
import type { PlanStep } from '../cot/plan.js';
import { foldDeliberationLog } from '../deliberation/deliberation-log.js';
import type { StoredEvent } from '../events/store/types.js';
import { foldFractalEvents } from '../fractal/frame-tree.js';
import { SessionModel } from '../got/session-model.js';
import { auditBar } from '../got/session-report.js';
import { foldGraphEvents } from '../graph/thought-graph.js';
import { runEventOf, type RunEventBase } from '../run/run-event.js';
import { foldSearchEvents } from '../search/replay-search.js';
import type { RunView, ViewCall, ViewNode, ViewPanel } from './view-model.js';

type AnyEvent = Record<string, unknown> & { type: string };

const label = (text: string, max = 48) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};
const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

/** A run's events as plain run events (the data of stored events). */
function runEvents(events: readonly (RunEventBase | StoredEvent)[]): AnyEvent[] {
  return events.map((e) => runEventOf(e) as unknown as AnyEvent);
}

/** Model calls in lanes: each call takes the first lane free when it starts. */
function callsOf(events: readonly AnyEvent[], t0: number, tEnd: number): { calls: ViewCall[]; tokens: { at: number; total: number }[] } {
  const open = new Map<string, ViewCall>();
  const calls: ViewCall[] = [];
  const tokens: { at: number; total: number }[] = [];
  let total = 0;
  for (const e of events) {
    const at = typeof e.at === 'number' ? e.at - t0 : 0;
    if (e.type === 'llm.requested') {
      const tags = ((e.request as { tags?: Record<string, string> } | undefined)?.tags ?? {}) as Record<string, string>;
      const tag = tags.role ?? tags.operation ?? tags['deliberation.participant'] ?? tags.agent ?? tags.kind;
      const c: ViewCall = { id: str(e.callId), start: at, end: at, lane: 0, outcome: 'open', inputTokens: 0, outputTokens: 0, ...(tag ? { tag } : {}) };
      open.set(c.id, c);
      calls.push(c);
    } else if (e.type === 'llm.completed' || e.type === 'llm.failed') {
      const c = open.get(str(e.callId));
      if (!c) continue;
      open.delete(c.id);
      c.end = at;
      c.outcome = e.type === 'llm.completed' ? 'completed' : 'failed';
      const charged = e.charged as { inputTokens?: number; outputTokens?: number } | undefined;
      c.inputTokens = charged?.inputTokens ?? 0;
      c.outputTokens = charged?.outputTokens ?? 0;
      total += c.inputTokens + c.outputTokens;
      tokens.push({ at, total });
    }
  }
  for (const c of open.values()) c.end = Math.max(c.start, tEnd - t0);
  const ends: number[] = [];
  for (const c of [...calls].sort((a, b) => a.start - b.start)) {
    let lane = ends.findIndex((end) => end <= c.start);
    if (lane === -1) lane = ends.length;
    ends[lane] = c.end;
    c.lane = lane;
  }
  return { calls, tokens };
}

function searchView(events: AnyEvent[]): Pick<RunView, 'nodes' | 'bestPath'> {
  const { tree } = foldSearchEvents(events as unknown as RunEventBase[]);
  const nodes: ViewNode[] = [];
  for (const n of tree.all()) {
    const solution = n.metadata.solution === true || (n.status === 'terminal' && n.metadata.solution !== false && n.evaluation !== null && n.evaluation.score >= 1);
    nodes.push({
      id: n.id,
      label: label(n.content || (n.parentId === null ? String(tree.problem) : n.id)),
      parents: n.parentId === null ? [] : [n.parentId],
      status: n.status === 'pruned' ? 'pruned' : solution ? 'solution' : 'active',
      ...(n.evaluation ? { score: n.evaluation.score } : {}),
      content: n.content || String(tree.problem),
      kind: n.status,
      ...(n.evaluation?.reasoning ? { output: n.evaluation.reasoning } : {}),
      details: { depth: String(n.depth), ...(n.actionType ? { action: n.actionType } : {}) },
    });
  }
  return { nodes, bestPath: tree.bestPath().map((n) => n.id) };
}

function graphView(events: AnyEvent[]): Pick<RunView, 'nodes' | 'bestPath'> {
  const json = foldGraphEvents(events as unknown as RunEventBase[]).toJSON();
  // A state's label: its last field (the part operations change: a sorted list, a count), after the id.
  const stateLabel = (state: unknown): string => {
    if (typeof state !== 'object' || state === null || Array.isArray(state)) return str(state);
    const values = Object.values(state as Record<string, unknown>);
    return str(values.at(-1));
  };
  const nodes: ViewNode[] = json.thoughts.map((t) => ({
    id: t.id,
    label: label(`${t.id}: ${stateLabel(t.state)}`),
    parents: [...t.parentIds],
    status: t.solved ? 'solution' : t.valid === false ? 'failed' : 'active',
    ...(t.score === undefined ? {} : { score: t.score }),
    content: JSON.stringify(t.state, null, 2) ?? '',
    kind: t.operationId,
  }));
  // The best path: from the last operation's first output back to the input.
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const last = [...json.operations].reverse().find((o) => o.outputIds.length > 0);
  const path: string[] = [];
  for (let id = last?.outputIds[0]; id !== undefined; id = byId.get(id)?.parents[0]) path.unshift(id);
  // A thought nothing built on, and that is not among the run's final outputs, was left behind
  // (keep-best passed others on): drawn as pruned.
  const followed = new Set(nodes.flatMap((n) => n.parents));
  const followedOps = new Set(json.operations.flatMap((o) => o.after));
  const final = new Set(json.operations.filter((o) => !followedOps.has(o.id)).flatMap((o) => o.outputIds));
  for (const n of nodes) if (n.parents.length > 0 && !followed.has(n.id) && !final.has(n.id) && n.status === 'active') n.status = 'pruned';
  return { nodes, bestPath: path };
}

function fractalView(events: AnyEvent[]): Pick<RunView, 'nodes' | 'bestPath'> {
  const frames = foldFractalEvents(events as unknown as RunEventBase[]).all();
  const nodes: ViewNode[] = frames.map((f) => ({
    id: f.id,
    label: label(f.goal),
    parents: f.parentId === null ? [] : [f.parentId],
    status: f.status === 'failed' ? 'failed' : f.status === 'returned' ? 'done' : 'active',
    content: [`Goal: ${f.goal}`, f.todo ? `To do: ${f.todo}` : '', f.done.length ? `Done: ${f.done.join('; ')}` : '', f.result ? `Result: ${f.result}` : ''].filter(Boolean).join('\n'),
    kind: 'frame',
    ...(f.result ? { output: f.result } : {}),
    details: { depth: String(f.depth), status: f.status, ...(f.toolCalls.length ? { tools: String(f.toolCalls.length) } : {}) },
  }));
  const root = frames.find((f) => f.parentId === null);
  return { nodes, bestPath: root ? [root.id] : [] };
}

function flatten(steps: readonly PlanStep[], depth = 0): { description: string; status: string; depth: number }[] {
  return steps.flatMap((s) => [{ description: s.description, status: s.status, depth }, ...flatten(s.subSteps ?? [], depth + 1)]);
}

function chainView(events: AnyEvent[]): Pick<RunView, 'nodes' | 'bestPath' | 'panels'> {
  const { thoughts, solution } = foldChainOfThoughtEvents(events);
  const nodes: ViewNode[] = thoughts.map((t, i) => ({
    id: `thought-${t.thoughtNumber}`,
    label: label(`${t.thoughtNumber}. ${t.currentThinking}`),
    parents: i === 0 ? [] : [`thought-${thoughts[i - 1]!.thoughtNumber}`],
    status: !t.nextThoughtNeeded && solution !== null ? 'solution' : 'active',
    content: t.currentThinking,
    kind: 'thought',
  }));
  const panels: ViewPanel[] = [{ kind: 'plan', versions: thoughts.map((t) => ({ thought: t.thoughtNumber, steps: flatten(t.planning) })) }];
  if (solution !== null) panels.push({ kind: 'text', title: 'Solution', text: solution });
  return { nodes, bestPath: nodes.map((n) => n.id), panels };
}

function deliberationView(events: AnyEvent[]): Pick<RunView, 'nodes' | 'bestPath' | 'panels'> {
  const log = foldDeliberationLog(events as unknown as RunEventBase[]);
  const nodes: ViewNode[] = [];
  const best: string[] = [];
  const trend: number[] = [];
  const heatmaps: { round: number; labels: string[]; matrix: number[][] }[] = [];
  let before: string[] = [];
  for (const r of log.rounds) {
    const ids: string[] = [];
    for (const o of r.outputs) {
      const id = `r${r.round}.${o.agentId}`;
      // The turn the agent was given (its first exchange of the round), and its final reply.
      const turn = o.transcript?.[0];
      const last = o.transcript?.at(-1);
      nodes.push({
        id,
        label: label(`${o.agentId}: ${o.position?.conclusion ?? o.content}`),
        parents: before,
        status: o.stale ? 'stale' : 'active',
        ...(o.position ? { score: o.position.confidence } : {}),
        content: o.content,
        kind: o.agentId,
        ...(turn && last ? { prompt: turn.user, output: last.assistant } : {}),
        details: { round: String(r.round), type: o.outputType, ...(o.stale ? { stale: o.stale.reason } : {}) },
      });
      ids.push(id);
    }
    const d = r.hostDecision;
    if (d) {
      const id = `r${r.round}.host`;
      nodes.push({ id, label: label(`host: ${d.action}`), parents: ids, status: d.action === 'converge' ? 'solution' : 'done', ...(d.analysis ? { score: d.analysis.consensusLevel } : {}), content: `${d.action}: ${d.reason}`, kind: 'host', details: { round: String(r.round), next: d.nextAgents.join(', ') || '—' } });
      best.push(id);
      before = [id];
      if (d.analysis) {
        trend.push(d.analysis.consensusLevel);
        heatmaps.push({ round: r.round, labels: r.outputs.map((o) => o.agentId), matrix: d.analysis.similarityMatrix });
      }
    } else before = ids;
  }
  if (log.report) {
    nodes.push({ id: 'report', label: label(`report: ${log.report.output.content}`), parents: before, status: 'solution', content: log.report.output.content, kind: 'report', details: { divergent: String(log.report.divergent) } });
    best.push('report');
  }
  return { nodes, bestPath: best, panels: [{ kind: 'consensus', trend, heatmaps }] };
}

function sessionView(events: readonly StoredEvent[]): Pick<RunView, 'nodes' | 'bestPath' | 'panels' | 'problem' | 'runId' | 'stopReason' | 'tokenBudget'> & { tokens: number } {
  let model: SessionModel | undefined;
  for (const e of events) {
    if (!model) model = SessionModel.start(e.streamId, e);
    else model.apply(e);
  }
  const s = model!.snapshot;
  const branchOf = new Map<string, (typeof s.branches)[number]>();
  for (const b of s.branches) for (const id of b.thoughtIds) branchOf.set(id, b);
  const nodes: ViewNode[] = s.thoughts.map((t) => {
    const b = t.branchId ? s.branches.find((x) => x.id === t.branchId) : branchOf.get(t.id);
    const status = b?.state === 'early_stopped' ? 'pruned' : b?.state === 'rejected' ? 'failed' : b && ['validated', 'executing', 'evidence_received', 'completed'].includes(b.state) ? 'solution' : 'active';
    return { id: t.id, label: label(`${t.role}: ${t.content}`), parents: [...t.parentIds], status, content: t.content, kind: t.role, details: { tokens: String(t.tokens), writer: t.writer, ...(b ? { branch: `${b.id} (${b.name}, ${b.state})` } : {}) } };
  });
  const winner = [...s.branches].filter((b) => b.reward !== undefined && !['early_stopped', 'rejected'].includes(b.state)).sort((a, b) => b.reward! - a.reward!)[0];
  const bestPath: string[] = [];
  if (winner) {
    const byId = new Map(nodes.map((n) => [n.id, n]));
    for (let id: string | undefined = winner.thoughtIds.at(-1) ?? winner.from; id !== undefined; id = byId.get(id)?.parents[0]) bestPath.unshift(id);
  }
  return {
    runId: s.id,
    problem: s.goal,
    stopReason: s.state,
    nodes,
    bestPath,
    tokens: s.tokensUsed,
    ...(s.budget.maxTokens ? { tokenBudget: s.budget.maxTokens } : {}),
    panels: [{ kind: 'branches', branches: s.branches.map((b) => ({ id: b.id, name: b.name, state: b.state, ...(b.reward === undefined ? {} : { reward: b.reward }) })), auditBar: auditBar(s) }],
  };
}

const KINDS: Record<string, RunView['kind']> = { search: 'search', graph: 'graph', fractal: 'fractal', 'chain-of-thought': 'chain-of-thought', deliberation: 'deliberation', solve: 'solve' };

/**
 * What the viewer shows of a recorded run: its nodes (tree, graph, frames, thoughts, rounds or a
 * GoT session's thoughts), best path, model calls in lanes, tokens over time, and the panels of its
 * kind. Takes the run's events as a store returns them (`readStream`) or as a runner emitted them.
 *
 * @example
 * ```ts
 * import { viewRun } from '@tot/core/viewer';
 *
 * const events = [];
 * for await (const e of store.readStream('run_01J…')) events.push(e);
 * const view = viewRun(events);
 * view.kind; // 'search'
 * ```
 */
export function viewRun(events: readonly (RunEventBase | StoredEvent)[]): RunView {
  const first = events[0] as (StoredEvent & { type: string }) | (RunEventBase & AnyEvent) | undefined;
  if (first && first.type === 'session.started' && 'streamId' in first) {
    const v = sessionView(events as StoredEvent[]);
    const at = (e: StoredEvent) => ((e.data as { at?: number } | undefined)?.at ?? 0);
    const t0 = at(events[0] as StoredEvent);
    return {
      kind: 'got-session',
      runId: v.runId,
      problem: v.problem,
      stopReason: v.stopReason!,
      summary: { thoughts: v.nodes.length, branches: (v.panels[0] as { branches: unknown[] }).branches.length, tokens: v.tokens, state: v.stopReason! },
      nodes: v.nodes,
      bestPath: v.bestPath,
      calls: [],
      tokens: (events as StoredEvent[]).flatMap((e, i, all) => (e.type === 'thought.added' ? [{ at: at(e) - t0, total: all.slice(0, i + 1).reduce((n, x) => n + (x.type === 'thought.added' ? Number((x.data as { tokens?: number }).tokens ?? 0) : 0), 0) }] : [])),
      ...(v.tokenBudget ? { tokenBudget: v.tokenBudget } : {}),
      panels: v.panels,
    };
  }
  const list = runEvents(events);
  const started = list.find((e) => e.type === 'run.started');
  const finished = list.find((e) => e.type === 'run.finished');
  const t0 = typeof started?.at === 'number' ? started.at : 0;
  const tEnd = typeof list.at(-1)?.at === 'number' ? (list.at(-1)!.at as number) : t0;
  const kind = KINDS[str(started?.runner)] ?? 'unknown';
  const { calls, tokens } = callsOf(list, t0, tEnd);
  let body: Pick<RunView, 'nodes' | 'bestPath'> & { panels?: ViewPanel[] } = { nodes: [], bestPath: [] };
  if (kind === 'search') body = searchView(list);
  else if (kind === 'graph') body = graphView(list);
  else if (kind === 'fractal') body = fractalView(list);
  else if (kind === 'chain-of-thought') body = chainView(list);
  else if (kind === 'deliberation') body = deliberationView(list);
  const stats = (finished?.stats ?? {}) as Record<string, number>;
  const budget = ((started?.config as { budget?: { maxTokens?: number } } | undefined)?.budget?.maxTokens) ?? undefined;
  return {
    kind,
    runId: str(started?.runId ?? list[0]?.runId),
    problem: str(started?.problem),
    ...(finished ? { stopReason: str(finished.stopReason) } : {}),
    summary: {
      'model calls': stats.llmCalls ?? calls.length,
      tokens: (stats.inputTokens ?? 0) + (stats.outputTokens ?? 0) || (tokens.at(-1)?.total ?? 0),
      'wall ms': stats.wallMs ?? Math.round(tEnd - t0),
      'max concurrent calls': calls.reduce((m, c) => Math.max(m, c.lane + 1), 0),
      stop: finished ? str(finished.stopReason) : 'not finished',
    },
    nodes: body.nodes,
    bestPath: body.bestPath,
    calls,
    tokens,
    ...(typeof budget === 'number' ? { tokenBudget: budget } : {}),
    panels: body.panels ?? [],
  };
}
