// A search (Explorer, solve()) as the viewer shows it: the tree, its best path, and each node tied
// to the generator call that made it and the evaluator call that scored it.
//
// The log's node events name no call, so the tie is made from the order of the log, which a
// search fixes: every step of every strategy expands a batch of parents (the generator is called
// for each, in order, and only when all have answered are their children recorded, parent by
// parent), then evaluates the new nodes (one evaluator call, whose scores are recorded node by
// node after it answered). So the calls made since the last recorded step are the batch's, and
// the k-th request among them is the k-th parent's (or k-th node's; or every node's, when the
// evaluator made one request for the step). When the numbers do not match (a parent whose
// generator made no call, a stop), no call is tied and the node says so.
import { foldSearchEvents } from '../search/replay-search.js';
import type { RunEventBase } from '../run/run-event.js';
import { groupCalls, outputsFor, type CallLog } from './view-calls.js';
import type { RunView, ViewNode } from './view-model.js';
import { label, str, type AnyEvent } from './view-util.js';

type Link = Pick<ViewNode, 'madeBy' | 'pick' | 'judgedBy' | 'noCall'>;

interface Batch {
  kind: 'generator' | 'evaluator';
  calls: number[];
  /** Per parent expanded (its children), or per node evaluated, in the log's order. */
  outcomes: { nodeId: string; childIds?: string[] }[];
}

const GENERATION_FAILED = /^generation failed/;
const EVALUATION_FAILED = /^(evaluation failed|evaluation missing|invalid evaluation)/;

/** Each node's calls: the generator call(s) that made it, the evaluator call(s) that scored it. */
export function linkSearchCalls(events: readonly AnyEvent[], log: CallLog): Map<string, Link> {
  const links = new Map<string, Link>();
  const link = (id: string): Link => {
    let l = links.get(id);
    if (!l) links.set(id, (l = {}));
    return l;
  };
  // Nodes whose evaluation is a copy (a duplicate candidate, an equal state): no evaluator call.
  const copied = new Set<string>();
  let pending: number[] = [];
  let batch: Batch | undefined;
  let inherited = 0;

  const resolve = (b: Batch) => {
    const groups = groupCalls(b.calls, log);
    const m = b.outcomes.length;
    b.outcomes.forEach((o, j) => {
      // The generator is asked once per parent; the evaluator once per step, and may ask the model once for all of them.
      const group = groups.length === m ? groups[j] : b.kind === 'evaluator' && groups.length === 1 ? groups[0] : undefined;
      const missing = groups.length === 0
        ? `No model call was recorded for the ${b.kind === 'generator' ? 'generation' : 'evaluation'} of its step (the ${b.kind} called no model through the run).`
        : `The log does not say which of the ${b.calls.length} ${b.kind} calls of its step ${b.kind === 'generator' ? 'made' : 'scored'} it.`;
      if (b.kind === 'evaluator') {
        if (group) link(o.nodeId).judgedBy = group;
        return;
      }
      const children = o.childIds ?? [];
      // One output per child (k samples, or one call with n = k): each child its own.
      const each = group ? outputsFor(group, children.length, log) : undefined;
      children.forEach((id, k) => {
        const l = link(id);
        if (each) {
          l.madeBy = [each[k]!.call];
          if (each[k]!.pick !== undefined) l.pick = each[k]!.pick;
        } else if (group) l.madeBy = group;
        else l.noCall = missing;
      });
    });
  };
  const close = () => {
    if (batch) resolve(batch);
    batch = undefined;
  };
  const outcome = (kind: Batch['kind'], nodeId: string, childIds?: string[]) => {
    if (batch?.kind !== kind) {
      close();
      // A call tagged with the other role is not this step's (a check between steps, say).
      const other = kind === 'generator' ? 'evaluator' : 'generator';
      batch = { kind, calls: pending.filter((i) => log.meta[i]!.tags.role !== other), outcomes: [] };
      pending = [];
    }
    batch.outcomes.push(childIds ? { nodeId, childIds } : { nodeId });
  };

  for (const e of events) {
    switch (e.type) {
      case 'llm.requested': {
        close();
        const i = log.index.get(str(e.callId));
        if (i !== undefined) pending.push(i);
        break;
      }
      case 'search.started':
        inherited = typeof e.nodes === 'number' ? e.nodes : 0;
        break;
      case 'node.created': {
        const node = e.node as { id: string; parentId: string | null; metadata?: Record<string, unknown> };
        if (typeof node.metadata?.duplicateOf === 'string') copied.add(node.id);
        if (inherited > 0) {
          inherited -= 1;
          link(node.id).noCall = node.parentId === null ? 'The problem the search started from: no model made it.' : 'In the tree the search started from: made before this run.';
        }
        break;
      }
      case 'node.expanded':
        outcome('generator', str(e.nodeId), (e.childIds as string[] | undefined) ?? []);
        break;
      case 'node.metadata': {
        const patch = (e.patch ?? {}) as Record<string, unknown>;
        if (typeof patch.dedupedState === 'string') copied.add(str(e.nodeId));
        if (typeof patch.error === 'string') {
          if (GENERATION_FAILED.test(patch.error)) outcome('generator', str(e.nodeId));
          else if (EVALUATION_FAILED.test(patch.error)) outcome('evaluator', str(e.nodeId));
        }
        break;
      }
      case 'node.evaluated':
        if (!copied.has(str(e.nodeId))) outcome('evaluator', str(e.nodeId));
        break;
    }
  }
  close();
  return links;
}

/** A search run's tree, best path and calls per node. */
export function searchView(events: AnyEvent[], log: CallLog): Pick<RunView, 'nodes' | 'bestPath'> {
  const { tree } = foldSearchEvents(events as unknown as RunEventBase[]);
  const links = linkSearchCalls(events, log);
  const nodes: ViewNode[] = [];
  for (const n of tree.all()) {
    const solution = n.metadata.solution === true || (n.status === 'terminal' && n.metadata.solution !== false && n.evaluation !== null && n.evaluation.score >= 1);
    const link = links.get(n.id) ?? (n.parentId === null ? { noCall: 'The problem the search started from: no model made it.' } : {});
    nodes.push({
      id: n.id,
      label: label(n.content || (n.parentId === null ? String(tree.problem) : n.id)),
      parents: n.parentId === null ? [] : [n.parentId],
      status: n.status === 'pruned' ? 'pruned' : solution ? 'solution' : 'active',
      ...(n.evaluation ? { score: n.evaluation.score } : {}),
      content: n.content || String(tree.problem),
      kind: n.status,
      ...link,
      details: {
        depth: String(n.depth),
        ...(n.actionType ? { action: n.actionType } : {}),
        ...(n.evaluation?.reasoning ? { reasoning: n.evaluation.reasoning } : {}),
        ...(typeof n.metadata.error === 'string' ? { error: n.metadata.error } : {}),
      },
    });
  }
  return { nodes, bestPath: tree.bestPath().map((n) => n.id) };
}
