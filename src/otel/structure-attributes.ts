import type { Attributes } from '@opentelemetry/api';

// A runner's own events become span events on the run span. Only structure goes in: ids, parent
// ids, depths, rounds, scores, states; never text a model or a user wrote (a thought's content, a
// frame's goal, an agent's answer), which joins only when the host opts in to content capture.

/** A prefix's attribute names by field: `tot.` + prefix + the field in snake case (`parentId` → `parent_id`). */
type Names = Map<string, string>;

const prefixes = new Map<string, Names>();

/** The names of one prefix's fields: looked up once per prefix, so that a field's name costs one map read and no string building. */
function namesOf(prefix: string): Names {
  let names = prefixes.get(prefix);
  if (names === undefined) {
    names = new Map();
    prefixes.set(prefix, names);
  }
  return names;
}

function attributeName(names: Names, prefix: string, key: string): string {
  let name = names.get(key);
  if (name === undefined) {
    name = `tot.${prefix}${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
    // Field names come from the runners' event types: a handful. A cap keeps odd input from growing it.
    if (names.size < 1000) names.set(key, name);
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

/** One structural field as a `tot.<prefix><field>` attribute, when it is one (an id, a name, a number, a list of ids). */
function addField(into: Attributes, names: Names, prefix: string, key: string, value: unknown): void {
  if (typeof value === 'number' || typeof value === 'boolean') into[attributeName(names, prefix, key)] = value;
  else if (typeof value === 'string') {
    if (isId(key) || NAME_FIELDS.has(key)) into[attributeName(names, prefix, key)] = value;
  } else if (value === null) {
    if (isId(key)) into[attributeName(names, prefix, key)] = '';
  } else if (Array.isArray(value)) {
    if (isIdList(key) && value.every((v) => typeof v === 'string')) into[attributeName(names, prefix, key)] = value as string[];
  }
}

/** The structural fields of one object, flattened into `tot.<prefix><field>` attributes. */
function addFields(into: Attributes, prefix: string, source: Record<string, unknown>): void {
  const names = namesOf(prefix);
  for (const key in source) {
    if (key === 'type' || key === 'runId' || key === 'at') continue;
    addField(into, names, prefix, key, source[key]);
  }
}

const NODE = namesOf('node.');
// The nested records whose fields join an event's attributes, with their prefixes made once.
const NESTED = ['output', 'reused', 'decision'].map((field) => ({ field, prefix: `${field}.` }));
const EVALUATION = namesOf('evaluation.');

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
    // Field by field, in this order, rather than through an object made for the purpose: one per node event.
    addField(attributes, NODE, 'node.', 'id', n.id);
    addField(attributes, NODE, 'node.', 'parentId', n.parentId);
    addField(attributes, NODE, 'node.', 'depth', n.depth);
    addField(attributes, NODE, 'node.', 'status', n.status);
    addField(attributes, NODE, 'node.', 'actionType', n.actionType);
  }
  const evaluation = event.evaluation;
  if (typeof evaluation === 'object' && evaluation !== null) {
    const e = evaluation as Record<string, unknown>;
    addField(attributes, EVALUATION, 'evaluation.', 'score', e.score);
    addField(attributes, EVALUATION, 'evaluation.', 'confidence', e.confidence);
  }
  const thoughts = event.thoughts;
  if (Array.isArray(thoughts)) {
    // One entry per thought, in order: its id, its parents (comma-joined), its score (NaN when unscored).
    const records = thoughts as { id?: unknown; parentIds?: unknown; score?: unknown }[];
    attributes['tot.thought.ids'] = records.map((t) => String(t.id));
    attributes['tot.thought.parent_ids'] = records.map((t) => (Array.isArray(t.parentIds) ? t.parentIds.join(',') : ''));
    attributes['tot.thought.scores'] = records.map((t) => (typeof t.score === 'number' ? t.score : Number.NaN));
  }
  for (const nested of NESTED) {
    const value = event[nested.field];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) addFields(attributes, nested.prefix, value as Record<string, unknown>);
  }
  const planning = event.planning;
  if (Array.isArray(planning)) attributes['tot.plan.steps'] = planning.length;
  const done = event.done;
  if (Array.isArray(done)) attributes['tot.done.count'] = done.length;
  return attributes;
}
