import type { Attributes } from '@opentelemetry/api';

// A runner's own events become span events on the run span. Only structure goes in: ids, parent
// ids, depths, rounds, scores, states; never text a model or a user wrote (a thought's content, a
// frame's goal, an agent's answer), which joins only when the host opts in to content capture.

const names = new Map<string, string>();

/** `tot.` + prefix + the key in snake case (`parentId` → `parent_id`); made once per field, since every event has them. */
function attributeName(prefix: string, key: string): string {
  const whole = prefix + key;
  let name = names.get(whole);
  if (name === undefined) {
    name = `tot.${prefix}${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
    // Field names come from the runners' event types: a handful. A cap keeps odd input from growing it.
    if (names.size < 1000) names.set(whole, name);
  }
  return name;
}

// String fields that are names and states the library or the host's code chose, never model text.
const NAME_FIELDS = new Set(['operation', 'strategy', 'winner', 'state', 'status', 'actionType', 'outputType', 'action', 'tool', 'role', 'kind', 'backend']);

function isId(key: string): boolean {
  return key === 'id' || key.endsWith('Id');
}

function isIdList(key: string): boolean {
  return key.endsWith('Ids') || key === 'frontier' || key === 'bestPath' || key === 'agents' || key === 'nextAgents';
}

/** The structural fields of one object, flattened into `tot.<prefix><field>` attributes. */
function addFields(into: Attributes, prefix: string, source: Record<string, unknown>): void {
  for (const key in source) {
    if (key === 'type' || key === 'runId' || key === 'at') continue;
    const value = source[key];
    const name = attributeName(prefix, key);
    if (typeof value === 'number' || typeof value === 'boolean') into[name] = value;
    else if (typeof value === 'string') {
      if (isId(key) || NAME_FIELDS.has(key)) into[name] = value;
    } else if (value === null) {
      if (isId(key)) into[name] = '';
    } else if (Array.isArray(value)) {
      if (isIdList(key) && value.every((v) => typeof v === 'string')) into[name] = value as string[];
    }
  }
}

/**
 * The attributes of the span event for a runner's event: its `seq`, the structural fields at its
 * top level, and those of the nested records that carry the structure (a search node and its
 * evaluation, an operation's thoughts, an agent's output, a host's decision, a branch's round).
 */
export function structureAttributes(event: Record<string, unknown>): Attributes {
  const attributes: Attributes = {};
  addFields(attributes, '', event);
  const node = event.node;
  if (typeof node === 'object' && node !== null) {
    const n = node as Record<string, unknown>;
    addFields(attributes, 'node.', { id: n.id, parentId: n.parentId, depth: n.depth, status: n.status, actionType: n.actionType });
  }
  const evaluation = event.evaluation;
  if (typeof evaluation === 'object' && evaluation !== null) {
    const e = evaluation as Record<string, unknown>;
    addFields(attributes, 'evaluation.', { score: e.score, confidence: e.confidence });
  }
  const thoughts = event.thoughts;
  if (Array.isArray(thoughts)) {
    // One entry per thought, in order: its id, its parents (comma-joined), its score (NaN when unscored).
    const records = thoughts as { id?: unknown; parentIds?: unknown; score?: unknown }[];
    attributes['tot.thought.ids'] = records.map((t) => String(t.id));
    attributes['tot.thought.parent_ids'] = records.map((t) => (Array.isArray(t.parentIds) ? t.parentIds.join(',') : ''));
    attributes['tot.thought.scores'] = records.map((t) => (typeof t.score === 'number' ? t.score : Number.NaN));
  }
  for (const nested of ['output', 'reused', 'decision'] as const) {
    const value = event[nested];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) addFields(attributes, `${nested}.`, value as Record<string, unknown>);
  }
  const planning = event.planning;
  if (Array.isArray(planning)) attributes['tot.plan.steps'] = planning.length;
  const done = event.done;
  if (Array.isArray(done)) attributes['tot.done.count'] = done.length;
  return attributes;
}
