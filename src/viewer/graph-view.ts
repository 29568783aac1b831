// An operation graph as the viewer shows it: the thoughts, the best path from the input to the
// last output, and each thought tied to the model call of its operation that made it.
//
// Every call of a graph run is tagged with its operation's id, and an operation that calls the
// model makes one request per input thought (generate, improve, a model score: in input order),
// or one for all of them (aggregate). So an operation's requests are its input thoughts', in
// order, and a thought made from a request whose outputs it and its siblings took one each is
// tied to its own output. Thoughts that local operations passed on (a score function, keep-best,
// a check) carry the state of the thought that was made by a call: the viewer shows that call.
import type { RunEventBase } from '../run/run-event.js';
import { INPUT_THOUGHT_ID } from '../graph/thought.js';
import { foldGraphEvents } from '../graph/thought-graph.js';
import { groupCalls, outputsFor, type CallLog } from './view-calls.js';
import type { RunView, ViewNode } from './view-model.js';
import { label, str, type AnyEvent } from './view-util.js';

/** A state's label: its last field (the part operations change: a sorted list, a count), after the id. */
const stateLabel = (state: unknown): string => {
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return str(state);
  const values = Object.values(state as Record<string, unknown>);
  return str(values.at(-1));
};

/** An operation graph run's thoughts, best path and calls per thought. */
export function graphView(events: AnyEvent[], log: CallLog): Pick<RunView, 'nodes' | 'bestPath'> {
  const json = foldGraphEvents(events as unknown as RunEventBase[]).toJSON();
  const inputs = new Map<string, string[]>();
  const dropped = new Map<string, { parents: string; response: string }[]>();
  for (const e of events) {
    if (e.type === 'operation.started') inputs.set(str(e.operationId), (e.inputIds as string[] | undefined) ?? []);
    else if (e.type === 'thought.dropped' && typeof e.response === 'string') {
      const list = dropped.get(str(e.operationId)) ?? [];
      list.push({ parents: ((e.parentIds as string[] | undefined) ?? []).join('\u0000'), response: e.response });
      dropped.set(str(e.operationId), list);
    }
  }
  const callsOf = new Map<string, number[]>();
  log.meta.forEach((m, i) => {
    const op = m.tags.operation;
    if (op === undefined) return;
    const list = callsOf.get(op);
    if (list) list.push(i);
    else callsOf.set(op, [i]);
  });

  const nodes: ViewNode[] = json.thoughts.map((t) => ({
    id: t.id,
    label: label(`${t.id}: ${stateLabel(t.state)}`),
    parents: [...t.parentIds],
    status: t.solved ? 'solution' : t.valid === false ? 'failed' : 'active',
    ...(t.score === undefined ? {} : { score: t.score }),
    content: JSON.stringify(t.state, null, 2) ?? '',
    kind: t.operationId,
  }));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const stateOf = new Map(json.thoughts.map((t) => [t.id, JSON.stringify(t.state)]));

  // The calls behind each thought, operation by operation (parents before children).
  const origin = new Map<string, string>();
  const carry = (n: ViewNode, parent: string) => {
    n.from = origin.get(parent) ?? parent;
    origin.set(n.id, n.from);
  };
  for (const op of json.operations) {
    const own = json.thoughts.filter((t) => t.operationId === op.id).map((t) => byId.get(t.id)!);
    const kind = op.kind;
    const groups = groupCalls(callsOf.get(op.id) ?? [], log);
    const opInputs = inputs.get(op.id) ?? [];
    const derived = (n: ViewNode) => n.parents.length === 1 && stateOf.get(n.id) === stateOf.get(n.parents[0]!);
    if (groups.length === 0) {
      for (const n of own) {
        if (derived(n)) carry(n, n.parents[0]!);
        else n.noCall = `Made by the ${kind} operation ${op.id}, which calls no model.`;
      }
      continue;
    }
    // Each thought's request: the only one, or its input thought's.
    const byGroup = new Map<number, ViewNode[]>();
    for (const n of own) {
      const g = groups.length === 1 ? 0 : groups.length === opInputs.length && n.parents.length === 1 ? opInputs.indexOf(n.parents[0]!) : -1;
      if (g < 0) {
        n.noCall = `Operation ${op.id} (${kind}) made ${groups.length} model requests; the log does not say which one made this thought.`;
        continue;
      }
      const list = byGroup.get(g);
      if (list) list.push(n);
      else byGroup.set(g, [n]);
    }
    for (const [g, made] of byGroup) {
      const group = groups[g]!;
      if (kind === 'score') {
        // A model score judges its input thought and passes its state on.
        for (const n of made) {
          n.judgedBy = group;
          if (derived(n)) carry(n, n.parents[0]!);
        }
        continue;
      }
      const parents = made[0]!.parents.join('\u0000');
      const lost = (dropped.get(op.id) ?? []).filter((d) => groups.length === 1 || d.parents === parents).map((d) => d.response);
      const each = outputsFor(group, made.length, log, lost);
      made.forEach((n, k) => {
        if (each) {
          n.madeBy = [each[k]!.call];
          if (each[k]!.pick !== undefined) n.pick = each[k]!.pick;
        } else n.madeBy = group;
      });
    }
  }
  const input = byId.get(INPUT_THOUGHT_ID);
  if (input) input.noCall = "The run's input: no model made it.";

  // The best path: from the last operation's first output back to the input.
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
