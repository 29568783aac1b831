import type { StoredEvent } from '../events/store/types.js';
import { extent } from '../internal/extent.js';
import { runEventOf, type RunEventBase } from '../run/run-event.js';
import { chainView } from './chain-view.js';
import { deliberationView } from './deliberation-view.js';
import { fractalView } from './fractal-view.js';
import { graphView } from './graph-view.js';
import { searchView } from './search-view.js';
import { sessionView } from './session-view.js';
import { callsOf } from './view-calls.js';
import type { RunView, ViewPanel } from './view-model.js';
import { questionsPanel, runEnd } from './view-questions.js';
import { str, type AnyEvent } from './view-util.js';

/** A run's events as plain run events (the data of stored events). */
function runEvents(events: readonly (RunEventBase | StoredEvent)[]): AnyEvent[] {
  return events.map((e) => runEventOf(e) as unknown as AnyEvent);
}

const KINDS: Record<string, RunView['kind']> = { search: 'search', graph: 'graph', fractal: 'fractal', 'chain-of-thought': 'chain-of-thought', deliberation: 'deliberation', solve: 'solve' };

/**
 * What the viewer shows of a recorded run: its nodes (tree, graph, frames, thoughts, rounds or an
 * agent session's thoughts), best path, model calls in lanes — each with the messages it sent and
 * the outputs it got, every distinct text stored once in `texts` — tokens over time, and the
 * panels of its kind, and the questions it asked a person (a `questions` panel, first). Each node
 * names the calls that made it (`madeBy`) and scored it (`judgedBy`), or says why it has none
 * (`noCall`). A run that waited for answers and was resumed has several `run.finished` events:
 * only the log's last event, when it is one, gives `stopReason`, and a run waiting for answers now
 * has `waiting` (the question ids). Takes the run's events as a store returns them
 * (`readStream`) or as a runner emitted them.
 *
 * @example
 * ```ts
 * import { viewRun } from '@tot/core/viewer';
 *
 * const events = [];
 * for await (const e of store.readStream('run_01J…')) events.push(e);
 * const view = viewRun(events);
 * view.kind; // 'search'
 * const leaf = view.nodes.find((n) => n.id === view.bestPath.at(-1))!;
 * const call = view.calls[leaf.madeBy![0]!]!;
 * call.messages!.map((m) => view.texts[m.text]); // the prompt that made it
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
      duration: Math.max(0, at(events.at(-1) as StoredEvent) - t0),
      interruptions: [],
      nodes: v.nodes,
      bestPath: v.bestPath,
      calls: [],
      texts: [],
      tokens: (events as StoredEvent[]).flatMap((e, i, all) => (e.type === 'thought.added' ? [{ at: at(e) - t0, total: all.slice(0, i + 1).reduce((n, x) => n + (x.type === 'thought.added' ? Number((x.data as { tokens?: number }).tokens ?? 0) : 0), 0) }] : [])),
      ...(v.tokenBudget ? { tokenBudget: v.tokenBudget } : {}),
      panels: [...questionsPanel(runEvents(events), 'running'), ...v.panels],
    };
  }
  const list = runEvents(events);
  const started = list.find((e) => e.type === 'run.started');
  // A run that waited for answers and was resumed finished more than once: only a run.finished
  // that is the log's last event says how it ended.
  const { state, finished } = runEnd(list, (e) => e.stopReason);
  const t0 = typeof started?.at === 'number' ? started.at : 0;
  const tEnd = typeof list.at(-1)?.at === 'number' ? (list.at(-1)!.at as number) : t0;
  const kind = KINDS[str(started?.runner)] ?? 'unknown';
  const log = callsOf(list, t0, tEnd);
  const { calls, tokens } = log;
  let body: Pick<RunView, 'nodes' | 'bestPath'> & { panels?: ViewPanel[] } = { nodes: [], bestPath: [] };
  if (kind === 'search') body = searchView(list, log);
  else if (kind === 'graph') body = graphView(list, log);
  else if (kind === 'fractal') body = fractalView(list, log, finished ? str(finished.stopReason) : undefined);
  else if (kind === 'chain-of-thought') body = chainView(list, log);
  else if (kind === 'deliberation') body = deliberationView(list, log);
  const stats = (finished?.stats ?? {}) as Record<string, number>;
  const questions = questionsPanel(list, state);
  const asked = questions[0]?.kind === 'questions' ? questions[0].questions : [];
  const detail = finished?.detail as { questions?: unknown } | undefined;
  const waiting = state !== 'waiting' ? undefined : Array.isArray(detail?.questions) ? detail.questions.map(str) : asked.filter((q) => q.answer === undefined).map((q) => q.id);
  const budget = ((started?.config as { budget?: { maxTokens?: number } } | undefined)?.budget?.maxTokens) ?? undefined;
  // The log's span: a resumed run's stats.wallMs counts only the process that finished it, and the
  // timeline runs from the first start, through the crash, to the end.
  const duration = Math.max(0, tEnd - t0, extent(calls, (c) => c.end).max);
  const cutOff = log.interruptions.length ? calls.filter((c) => c.outcome === 'open').length : 0;
  return {
    kind,
    runId: str(started?.runId ?? list[0]?.runId),
    problem: str(started?.problem),
    ...(finished ? { stopReason: str(finished.stopReason) } : {}),
    ...(waiting ? { waiting } : {}),
    summary: {
      'model calls': stats.llmCalls ?? calls.length,
      tokens: (stats.inputTokens ?? 0) + (stats.outputTokens ?? 0) || (tokens.at(-1)?.total ?? 0),
      'wall ms': duration > 0 || stats.wallMs === undefined ? Math.round(duration) : stats.wallMs,
      'max concurrent calls': calls.reduce((m, c) => Math.max(m, c.lane + 1), 0),
      ...(log.interruptions.length ? { resumed: log.interruptions.length, 'calls cut off by a crash': cutOff } : {}),
      stop: waiting ? `waiting for ${waiting.length === 1 ? 'an answer' : `${waiting.length} answers`}` : finished ? str(finished.stopReason) : 'not finished',
    },
    nodes: body.nodes,
    bestPath: body.bestPath,
    calls,
    texts: log.texts,
    tokens,
    duration,
    interruptions: log.interruptions,
    ...(typeof budget === 'number' ? { tokenBudget: budget } : {}),
    panels: [...questions, ...(body.panels ?? [])],
  };
}
