import { TotError } from '../errors/index.js';
import { ThoughtTree } from '../tree/thought-tree.js';
import type { NodeStatus, SearchState, ThoughtNode, ThoughtTreeJSON } from '../tree/types.js';
import type { RunEvent } from './run-event.js';
import type { EventStore, StoredEvent } from './store/types.js';

/**
 * The events that change a run's tree, as opposed to model calls, budget warnings and resumes.
 *
 * @example
 * ```ts
 * import { isTreeEvent } from '@tot/core';
 *
 * isTreeEvent({ type: 'llm.completed' }); // false
 * ```
 */
export function isTreeEvent(event: { type: string }): boolean {
  return !event.type.startsWith('llm.') && event.type !== 'budget.warning' && event.type !== 'run.resumed';
}

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

type Mutable = { -readonly [K in keyof ThoughtNode]: ThoughtNode[K] } & { childrenIds: string[] };

/**
 * Folds a run's events into its tree: the same nodes, ids, evaluations, statuses, metadata and
 * search state as the tree the run built, byte for byte.
 *
 * @example
 * ```ts
 * import { foldRunEvents } from '@tot/core';
 *
 * const { tree } = foldRunEvents(events);
 * ```
 */
export function foldRunEvents(events: Iterable<RunEvent | StoredEvent>): ReplayedRun {
  let header: { problem: string; config: Record<string, unknown> } | undefined;
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
    count += 1;
    const e = ('data' in raw && 'streamId' in raw ? raw.data : raw) as RunEvent;
    switch (e.type) {
      case 'run.started':
        header ??= { problem: e.problem, config: e.config ?? {} };
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
        break;
    }
  }
  if (!header || rootId === undefined) throw new TotError('INVALID_FORMAT', 'Run log has no run.started or no root node.', { details: { events: count } });
  const c = header.config;
  const json: ThoughtTreeJSON = {
    version: 1,
    taskId: String(c.taskId ?? 'task'),
    problem: header.problem,
    taskType: String(c.taskType ?? 'general'),
    searchConfig: (c.searchConfig ?? { strategy: 'bfs', maxDepth: 3, branchingFactor: 5, pruningThreshold: 3 }) as ThoughtTreeJSON['searchConfig'],
    rootId,
    nodes: Object.fromEntries(nodes),
    searchState: searchState ?? { currentDepth: 0, frontier: [], bestPath: [] },
  };
  return { tree: ThoughtTree.fromJSON(json), stopReason, events: count, modelCalls };
}

/**
 * Rebuilds a recorded run's tree from an event store (see `Explorer.run` with `store`). Works on
 * an interrupted run too: the tree is then the one the run had when its last event was stored.
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
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(runId)) events.push(e);
  if (events.length === 0) throw new TotError('INVALID_ARGUMENT', `replayRun: no run "${runId}" in the store`, { details: { field: 'runId' } });
  return foldRunEvents(events);
}
