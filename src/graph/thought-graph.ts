import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { escapeMermaid } from '../internal/mermaid.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import type { ProtocolErrorObject } from '../errors/index.js';
import type { StoredEvent } from '../events/store/types.js';
import { eventShapeCheck } from '../run/run-log-check.js';
import { runEventOf, type RunEventBase } from '../run/run-event.js';
import { graphEventShapes, type GraphEvent, type ThoughtRecord } from './graph-events.js';
import { INPUT_THOUGHT_ID, makeThought, type GraphThought } from './thought.js';

/**
 * An operation of a graph, as a {@link ThoughtGraph} and a run's configuration describe it.
 *
 * @example
 * ```ts
 * import type { OperationInfo } from '@tot/core/graph';
 *
 * const info: OperationInfo = { id: 'sort', kind: 'generate', after: ['split'] };
 * ```
 */
export interface OperationInfo {
  id: string;
  kind: string;
  /** Its predecessors, in the order their outputs make its input; none: it works on the run's input. */
  after: string[];
}

/**
 * A {@link ThoughtGraph} as JSON: the operations (with whether each completed, its output, and
 * the error of one that failed) and every thought, in a fixed order (the input, then each
 * operation's thoughts in creation order, operations in the order they were added) whatever the
 * order in which the run's operations finished.
 *
 * @example
 * ```ts
 * import type { ThoughtGraphJSON } from '@tot/core/graph';
 *
 * const solved = (g: ThoughtGraphJSON) => g.thoughts.filter((t) => t.solved).map((t) => t.id);
 * ```
 */
export interface ThoughtGraphJSON<S = unknown> {
  operations: (OperationInfo & { status: 'pending' | 'completed' | 'failed'; outputIds: string[]; error?: ProtocolErrorObject })[];
  thoughts: ThoughtRecord<S>[];
}

/**
 * Options of {@link ThoughtGraph.toMermaid}.
 *
 * @example
 * ```ts
 * import type { ThoughtGraphMermaidOptions } from '@tot/core/graph';
 *
 * const options: ThoughtGraphMermaidOptions<{ list: number[] }> = { label: (t) => t.state.list.join(' ') };
 * ```
 */
export interface ThoughtGraphMermaidOptions<S> {
  /** A node's text. Default: its state as JSON, cut at 60 characters, and its score. */
  label?: (thought: GraphThought<S>) => string;
}

const mermaidOptionsSchema = z.strictObject({ label: fnSchema().optional() });

const record = <S>(t: GraphThought<S>): ThoughtRecord<S> => ({ ...t, parentIds: [...t.parentIds] });

/**
 * The graph of thoughts of an operation-graph run: every thought, the operation that made it and
 * its parents; which operations completed and what each passed on. Built by the run as operations
 * complete, and equally by folding the run's events ({@link foldGraphEvents}).
 *
 * @example
 * ```ts
 * const { graph } = await g.run({ model, input: { list: [3, 1, 2] } });
 * graph.outputsOf('best')?.[0]?.state;
 * console.log(graph.toMermaid());
 * ```
 */
/**
 * @internal What a graph holds, written by the run (or the fold) that builds it; the graph reads it.
 */
export class GraphParts<S> {
  readonly made = new Map<string, GraphThought<S>[]>();
  readonly outputs = new Map<string, readonly GraphThought<S>[]>();
  readonly failures = new Map<string, ProtocolErrorObject>();
  count = 1;

  constructor(readonly input: GraphThought<S>) {}

  get(id: string): GraphThought<S> | undefined {
    if (id === INPUT_THOUGHT_ID) return this.input;
    // An id is `<operation>.<index>`: no index of its own is needed.
    const dot = id.lastIndexOf('.');
    const t = this.made.get(id.slice(0, dot))?.[Number(id.slice(dot + 1))];
    return t?.id === id ? t : undefined;
  }

  /**
   * An operation's thoughts, once it completed, as the run made them (ids unique, parents held,
   * outputs among them: the program made them so, and checks what operations return).
   */
  add(operationId: string, thoughts: GraphThought<S>[], outputs: readonly GraphThought<S>[]): void {
    this.count += thoughts.length;
    this.made.set(operationId, thoughts);
    this.outputs.set(operationId, outputs);
  }

  /** An operation's thoughts as a log holds them: checked, since a log can be corrupt. */
  complete(operationId: string, thoughts: readonly GraphThought<S>[], outputIds: readonly string[]): readonly GraphThought<S>[] {
    const mine = new Map<string, GraphThought<S>>();
    thoughts.forEach((t, i) => {
      if (t.id !== `${operationId}.${i}` || t.operationId !== operationId) throw new TotError('INVALID_FORMAT', `Thought ${t.id} is not thought ${i} of operation ${operationId}.`);
      // Parents come before their children: earlier thoughts of the graph, or of this operation.
      for (const p of t.parentIds) if (!this.get(p) && !mine.has(p)) throw new TotError('INVALID_FORMAT', `Thought ${t.id} names a parent ${p} the graph does not hold.`);
      mine.set(t.id, t);
    });
    if (this.made.has(operationId)) throw new TotError('INVALID_FORMAT', `The graph already holds the thoughts of operation ${operationId}.`);
    const out = outputIds.map((id) => {
      const t = mine.get(id);
      if (!t) throw new TotError('INVALID_FORMAT', `Operation ${operationId} lists an output ${id} it did not make.`);
      return t;
    });
    this.add(operationId, [...thoughts], out);
    return out;
  }

  /** An operation that failed: it passes nothing on. */
  fail(operationId: string, error: ProtocolErrorObject): void {
    this.failures.set(operationId, error);
    this.made.set(operationId, []);
    this.outputs.set(operationId, []);
  }
}

/**
 * The graph of thoughts of an operation-graph run: every thought, the operation that made it and
 * its parents; which operations completed and what each passed on. Built by the run as operations
 * complete, and equally by folding the run's events ({@link foldGraphEvents}).
 *
 * @example
 * ```ts
 * const { graph } = await g.run({ model, input: { list: [3, 1, 2] } });
 * graph.outputsOf('best')?.[0]?.state;
 * console.log(graph.toMermaid());
 * ```
 */
export class ThoughtGraph<S = unknown> {
  /**
   * The operations of the run, in the order they were added.
   *
   * @example
   * ```ts
   * graph.operations.map((o) => `${o.id} after ${o.after.join(', ') || 'input'}`);
   * ```
   */
  readonly operations: readonly OperationInfo[];
  private readonly parts: GraphParts<S>;

  /** @internal Graphs are made by runs and folds. */
  constructor(operations: readonly OperationInfo[], parts: GraphParts<S>) {
    this.operations = operations.map((o) => Object.freeze({ id: o.id, kind: o.kind, after: [...o.after] }));
    this.parts = parts;
  }

  /**
   * The thought that holds the run's input.
   *
   * @example
   * ```ts
   * graph.input.id; // 'input.0'
   * ```
   */
  get input(): GraphThought<S> {
    return this.parts.input;
  }

  /**
   * How many thoughts it holds, the input included.
   *
   * @example
   * ```ts
   * console.log(`${graph.size} thoughts`);
   * ```
   */
  get size(): number {
    return this.parts.count;
  }

  /**
   * A thought by id.
   *
   * @example
   * ```ts
   * const parents = graph.get('merge.3')?.parentIds.map((id) => graph.get(id)?.state);
   * ```
   */
  get(id: string): GraphThought<S> | undefined {
    return this.parts.get(id);
  }

  /**
   * The output of a completed operation (`undefined` while it has not completed; `[]` when it failed).
   *
   * @example
   * ```ts
   * const kept = graph.outputsOf('best-merge')?.[0];
   * ```
   */
  outputsOf(operationId: string): readonly GraphThought<S>[] | undefined {
    return this.parts.outputs.get(operationId);
  }

  /**
   * Every thought an operation made (outputs and, for `validateAndImprove`, the versions before them).
   *
   * @example
   * ```ts
   * const attempts = graph.thoughtsOf('sort-1').map((t) => t.score);
   * ```
   */
  thoughtsOf(operationId: string): readonly GraphThought<S>[] {
    return this.parts.made.get(operationId) ?? [];
  }

  /**
   * The error of an operation that failed.
   *
   * @example
   * ```ts
   * const why = graph.errorOf('best')?.message;
   * ```
   */
  errorOf(operationId: string): ProtocolErrorObject | undefined {
    return this.parts.failures.get(operationId);
  }

  /**
   * Every thought, the input first, then by operation in the order they were added.
   *
   * @example
   * ```ts
   * const solved = graph.all().filter((t) => t.solved);
   * ```
   */
  all(): GraphThought<S>[] {
    const out = [this.input];
    // One by one, not push(...made): an operation that made a few hundred thousand thoughts overflows the stack.
    for (const op of this.operations) for (const t of this.parts.made.get(op.id) ?? []) out.push(t);
    return out;
  }

  /**
   * The graph as JSON, in a fixed order (see {@link ThoughtGraphJSON}).
   *
   * @example
   * ```ts
   * writeFileSync('graph.json', JSON.stringify(graph.toJSON(), null, 2));
   * ```
   */
  toJSON(): ThoughtGraphJSON<S> {
    return {
      operations: this.operations.map((o) => {
        const error = this.parts.failures.get(o.id);
        const outputs = this.parts.outputs.get(o.id);
        return { ...o, after: [...o.after], status: error ? 'failed' : outputs ? 'completed' : 'pending', outputIds: (outputs ?? []).map((t) => t.id), ...(error ? { error: { ...error } } : {}) };
      }),
      thoughts: this.all().map(record),
    };
  }

  /**
   * The graph as a Mermaid flowchart: one subgraph per operation, an edge from each parent to its
   * child, output thoughts in bold, solved ones marked.
   *
   * @example
   * ```ts
   * console.log(result.graph.toMermaid({ label: (t) => `${t.state.list.join(' ')} (${t.score ?? '-'})` }));
   * ```
   */
  toMermaid(options: ThoughtGraphMermaidOptions<S> = {}): string {
    parseOptions(mermaidOptionsSchema, options, 'ThoughtGraph.toMermaid');
    const node = (id: string) => `t_${id.replace(/[^A-Za-z0-9]/g, '_')}`;
    const text = (s: string) => escapeMermaid(s).replace(/\n/g, ' ');
    const label =
      options.label ??
      ((t: GraphThought<S>) => {
        const json = JSON.stringify(t.state) ?? String(t.state);
        return `${json.length > 60 ? `${json.slice(0, 59)}…` : json}${t.score === undefined ? '' : ` · ${t.score}`}`;
      });
    const lines = ['flowchart TD', `  ${node(INPUT_THOUGHT_ID)}["input: ${text(label(this.input))}"]`];
    const edges: string[] = [];
    for (const op of this.operations) {
      const made = this.parts.made.get(op.id) ?? [];
      const outputs = new Set((this.parts.outputs.get(op.id) ?? []).map((t) => t.id));
      lines.push(`  subgraph g_${op.id.replace(/[^A-Za-z0-9]/g, '_')} ["${text(`${op.id} · ${op.kind}`)}"]`);
      for (const t of made) {
        const body = text(`${t.id}: ${label(t)}${t.solved ? ' ✓' : ''}${t.valid === false ? ' (invalid)' : ''}`);
        lines.push(`    ${node(t.id)}["${outputs.has(t.id) ? `<b>${body}</b>` : body}"]`);
        for (const p of t.parentIds) edges.push(`  ${node(p)} --> ${node(t.id)}`);
      }
      lines.push('  end');
    }
    return [...lines, ...edges].join('\n');
  }
}

const checkEvent = eventShapeCheck(graphEventShapes);

const corrupt = (position: number, message: string) => new TotError('INVALID_FORMAT', `The operation-graph log is corrupt at event ${position}: ${message}.`, { details: { position } });

/** The operations a graph run records in its configuration: ids unique, each after earlier ones only. */
const operationsSchema = z
  .array(z.looseObject({ id: z.string().min(1), kind: z.string().min(1), after: z.array(z.string()) }))
  .superRefine((ops, ctx) => {
    const seen = new Set<string>();
    ops.forEach((op, i) => {
      for (const before of op.after) if (!seen.has(before)) ctx.addIssue({ code: 'custom', message: `operation ${op.id} comes after "${before}", which is not an earlier operation`, path: [i, 'after'] });
      if (seen.has(op.id)) ctx.addIssue({ code: 'custom', message: `operation id ${op.id} is used twice`, path: [i, 'id'] });
      seen.add(op.id);
    });
  });

/** A dropped thought as a log holds it. */
export interface DroppedRecord {
  parentIds: string[];
  error: ProtocolErrorObject;
  response?: string;
}

/** @internal What a resume needs of a graph run's log. */
export interface GraphLog<S> {
  graph: ThoughtGraph<S>;
  /** Operations in the order the log completed (or failed) them. */
  finished: string[];
  /** Thoughts dropped by each finished operation. */
  dropped: Map<string, DroppedRecord[]>;
}

/** @internal The graph, the order of completions and the drops of a graph run's log. */
export function foldGraphLog<S>(events: Iterable<RunEventBase | StoredEvent>): GraphLog<S> {
  let graph: ThoughtGraph<S> | undefined;
  let parts: GraphParts<S> | undefined;
  const finished: string[] = [];
  const dropped = new Map<string, DroppedRecord[]>();
  const pending = new Map<string, DroppedRecord[]>();
  const known = new Set<string>();
  let position = 0;
  for (const raw of events) {
    const e = runEventOf(raw) as GraphEvent;
    checkEvent(e, position, 'The operation-graph log');
    if (e.type === 'run.started') {
      if (graph) throw corrupt(position, 'run.started may only begin the log');
      const operations = operationsSchema.safeParse((e.config as { operations?: unknown }).operations);
      if (!operations.success) throw corrupt(position, `config.operations: ${z.prettifyError(operations.error).replace(/\n/g, ' ')}`);
      const input = (e.input as { state?: unknown } | undefined)?.state;
      parts = new GraphParts<S>(makeThought(INPUT_THOUGHT_ID, 'input', [], input as S, undefined));
      graph = new ThoughtGraph<S>(operations.data, parts);
      for (const o of operations.data) known.add(o.id);
    } else if (graph === undefined) {
      throw corrupt(position, 'it does not begin with run.started');
    } else if (e.type === 'operation.started') {
      // A restarted operation (after a resume) makes its drops again.
      pending.set(e.operationId, []);
    } else if (e.type === 'thought.dropped') {
      const list = pending.get(e.operationId) ?? [];
      list.push({ parentIds: [...e.parentIds], error: { ...e.error }, ...(e.response === undefined ? {} : { response: e.response }) });
      pending.set(e.operationId, list);
    } else if (e.type === 'operation.completed' || e.type === 'operation.failed') {
      if (!known.has(e.operationId)) throw corrupt(position, `no operation ${e.operationId}`);
      if (dropped.has(e.operationId)) throw corrupt(position, `operation ${e.operationId} finished twice`);
      if (e.type === 'operation.completed') {
        const made = e.thoughts.map((t) => makeThought(t.id, t.operationId, [...t.parentIds], t.state as S, t));
        try {
          parts!.complete(e.operationId, made, e.outputIds);
        } catch (error) {
          throw new TotError('INVALID_FORMAT', `The operation-graph log is corrupt at event ${position}: ${(error as Error).message}`, { cause: error, details: { position } });
        }
      } else parts!.fail(e.operationId, { ...e.error });
      finished.push(e.operationId);
      dropped.set(e.operationId, pending.get(e.operationId) ?? []);
      pending.delete(e.operationId);
    }
    position += 1;
  }
  if (!graph) throw new TotError('INVALID_FORMAT', 'The operation-graph log is empty.', { details: { position: 0 } });
  return { graph, finished, dropped };
}

/**
 * Rebuilds the graph of thoughts of an operation-graph run from its events (as `onEvent`,
 * `stream()` or a store gave them): equal, as JSON, to the graph the run returned.
 *
 * @example
 * ```ts
 * import { foldGraphEvents } from '@tot/core/graph';
 *
 * const events: GraphEvent[] = [];
 * const result = await g.run({ model, input, onEvent: (e) => events.push(e) });
 * JSON.stringify(foldGraphEvents(events).toJSON()) === JSON.stringify(result.graph.toJSON()); // true
 * ```
 */
export function foldGraphEvents<S = unknown>(events: Iterable<RunEventBase | StoredEvent>): ThoughtGraph<S> {
  return foldGraphLog<S>(events).graph;
}
