import { TotError } from '../errors/index.js';
import type { EventStore, StoredEvent } from '../events/store/types.js';
import { readRecordedRun } from '../run/recorded-run.js';
import { runEventOf, type RunEventBase, type RunStartedEvent } from '../run/run-event.js';
import { eventShapeCheck } from '../run/run-log-check.js';
import { ThoughtTree } from '../tree/thought-tree.js';
import type { NodeStatus, SearchConfig, SearchState, ThoughtNode, ThoughtTreeJSON } from '../tree/types.js';
import { searchEventShapes, type SearchEvent } from './search-events.js';

/**
 * What {@link replayRun} rebuilds.
 *
 * @example
 * ```ts
 * import type { ReplayedRun } from '@tot/core';
 *
 * const done = (r: ReplayedRun) => r.stopReason !== undefined;
 * ```
 */
export interface ReplayedRun {
  tree: ThoughtTree;
  /** The run's stop reason, or `undefined` if the log ends before `run.finished` (an interrupted run). */
  stopReason: string | undefined;
  /** Events read. */
  events: number;
  /** Model calls recorded as completed. */
  modelCalls: number;
}

const checkEvent = eventShapeCheck(searchEventShapes);


type Mutable = { -readonly [K in keyof ThoughtNode]: ThoughtNode[K] } & { childrenIds: string[] };


/**
 * The tree a search of a problem starts from, as its `run.started` describes it: a root holding
 * the problem, the task id the run recorded (the run id by default), the task type and the limits
 * of the recorded configuration. `undefined` for a search of a given tree (`explorer.run(tree)`),
 * whose nodes only the events after `run.started` hold.
 */
export function problemTree(started: Pick<RunStartedEvent, 'runId' | 'problem' | 'config' | 'input'>): ThoughtTree | undefined {
  if (started.input?.tree === 'given') return undefined;
  const c = started.config;
  const strategy = (c.strategy as { name?: unknown } | undefined)?.name;
  if (typeof strategy !== 'string' || typeof c.taskType !== 'string') return undefined;
  const taskId = started.input?.taskId;
  const searchConfig: Partial<SearchConfig> = { strategy };
  for (const limit of ['maxDepth', 'branchingFactor', 'pruningThreshold'] as const) if (typeof c[limit] === 'number') searchConfig[limit] = c[limit];
  return new ThoughtTree({ problem: started.problem, taskId: typeof taskId === 'string' ? taskId : started.runId, taskType: c.taskType, searchConfig });
}

/**
 * Folds a search's events into its tree: the same nodes, ids, evaluations, statuses, metadata
 * and search state as the tree the run built, byte for byte. A log that stops right after
 * `run.started` gives the tree the search started from. An event of the wrong shape, or one
 * naming a node before its creation, is `INVALID_FORMAT` with the event's position.
 *
 * @example
 * ```ts
 * import { foldSearchEvents } from '@tot/core';
 *
 * const { tree } = foldSearchEvents(events);
 * ```
 */
export function foldSearchEvents(events: Iterable<RunEventBase | StoredEvent>): ReplayedRun {
  let started: RunStartedEvent | undefined;
  let problem: string | undefined;
  let header: Extract<SearchEvent, { type: 'search.started' }> | undefined;
  const nodes = new Map<string, Mutable>();
  let rootId: string | undefined;
  let searchState: SearchState | undefined;
  let stopReason: string | undefined;
  let count = 0;
  let modelCalls = 0;
  const node = (id: string) => {
    const n = nodes.get(id);
    if (!n) throw new TotError('INVALID_FORMAT', `Run log names node "${id}" before creating it.`, { details: { nodeId: id } });
    return n;
  };
  for (const raw of events) {
    const e = runEventOf(raw) as SearchEvent;
    checkEvent(e, count, 'The search log');
    count += 1;
    switch (e.type) {
      case 'run.started':
        started ??= e as RunStartedEvent;
        problem ??= started.problem;
        break;
      case 'search.started':
        header ??= e;
        break;
      case 'node.created': {
        const n = e.node;
        if (nodes.has(n.id)) break;
        nodes.set(n.id, { ...n, childrenIds: [...n.childrenIds], metadata: { ...n.metadata }, evaluation: n.evaluation === null ? null : { ...n.evaluation } } as Mutable);
        if (n.parentId === null) rootId = n.id;
        else {
          const parent = node(n.parentId);
          if (!parent.childrenIds.includes(n.id)) parent.childrenIds.push(n.id);
          if (parent.status === 'pending') parent.status = 'expanded';
        }
        break;
      }
      case 'node.expanded':
        if (node(e.nodeId).status === 'pending') node(e.nodeId).status = 'expanded';
        break;
      case 'node.evaluated':
        node(e.nodeId).evaluation = { ...e.evaluation };
        break;
      case 'node.metadata':
        node(e.nodeId).metadata = { ...node(e.nodeId).metadata, ...e.patch };
        break;
      case 'node.pruned':
        for (const id of e.prunedIds) node(id).status = 'pruned' satisfies NodeStatus;
        break;
      case 'node.terminal':
        node(e.nodeId).status = 'terminal';
        break;
      case 'search.state':
        searchState = { currentDepth: e.currentDepth, frontier: [...e.frontier], bestPath: [...e.bestPath] };
        break;
      case 'llm.completed':
        modelCalls += 1;
        break;
      case 'run.finished':
        stopReason = e.stopReason;
        break;
      default:
        // A run that was waiting and is resumed has not finished until its next run.finished.
        if ((e as { type: string }).type === 'run.resumed') stopReason = undefined;
        break;
    }
  }
  if (started !== undefined && header === undefined && nodes.size === 0) {
    // Stopped before its starting tree was recorded: a search of a problem starts from the tree
    // its run.started describes; a search of a given tree cannot be rebuilt without its nodes.
    const tree = problemTree(started);
    if (tree) return { tree, stopReason, events: count, modelCalls };
    throw new TotError('INVALID_FORMAT', `Run "${started.runId}" searched a given tree and stopped before the tree was recorded: its log cannot rebuild it. Run the search again.`, {
      details: { events: count },
    });
  }
  if (problem === undefined || header === undefined || rootId === undefined) {
    throw new TotError('INVALID_FORMAT', 'Run log has no run.started, no search.started or no root node: it is not the log of a search.', { details: { events: count } });
  }
  const json: ThoughtTreeJSON = {
    version: 1,
    taskId: header.taskId,
    problem,
    taskType: header.taskType,
    searchConfig: header.searchConfig,
    rootId,
    nodes: Object.fromEntries(nodes),
    searchState: searchState ?? { currentDepth: 0, frontier: [], bestPath: [] },
  };
  return { tree: ThoughtTree.fromJSON(json), stopReason, events: count, modelCalls };
}

/**
 * Rebuilds a recorded search's tree from an event store (`explorer.run(problem, { store })`, or
 * `solve({ …, store })`). Works on an interrupted run too: the tree is then the one the run had
 * when its last event was stored.
 *
 * @example
 * ```ts
 * import { replayRun } from '@tot/core';
 *
 * const { tree, stopReason } = await replayRun(store, 'run-42');
 * console.log(tree.toMermaid());
 * ```
 */
export async function replayRun(store: EventStore, runId: string): Promise<ReplayedRun> {
  const log = await readRecordedRun(store, runId);
  return foldSearchEvents(log.events);
}
