import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import type { RecordedRun } from '../run/recorded-run.js';
import { RunEmitter } from '../run/run-emitter.js';
import type { RunEventBase } from '../run/run-event.js';
import { resumeOptionsShape, runnerOptionsShape, runOptionsShape, type ResumeOptions, type RunBudget, type RunOptions } from '../run/run-options.js';
import { resumeRun, startRun, type RunSettings } from '../run/run.js';
import type { GraphEvent } from './graph-events.js';
import { graphProgram, leafOutputs, type GraphOp, type GraphStats, type GraphStopReason, type OperationGraphResult } from './graph-program.js';
import type { Operation } from './operation.js';
import { foldGraphLog } from './thought-graph.js';

/**
 * A handle on an operation added to an {@link OperationGraph}, for the `after` of later ones.
 *
 * @example
 * ```ts
 * const split = g.add(generate({ prompt, parse }), { id: 'split' });
 * split.id; // 'split'
 * ```
 */
export interface OperationRef {
  readonly id: string;
  readonly kind: string;
}

/**
 * Options of {@link OperationGraph.add}.
 *
 * @example
 * ```ts
 * import type { AddOperationOptions } from '@tot/core/graph';
 *
 * const options: AddOperationOptions = { after: ['split'], id: 'sort-left' };
 * ```
 */
export interface AddOperationOptions {
  /**
   * Its predecessors (handles or ids): its input is their output, concatenated in this order.
   * Default: the operations no other operation follows yet (none for the first: it works on the
   * run's input). `[]` makes it a root.
   */
  after?: readonly (OperationRef | string)[];
  /** Its id, in thought ids and events (letters, digits, `_`, `-`). Default `op<index>`. */
  id?: string;
}

/**
 * What every run of a graph is given, whether it starts or resumes one (a resume must be given
 * what the run was recorded with).
 *
 * @example
 * ```ts
 * import type { OperationGraphOptions } from '@tot/core/graph';
 *
 * const options: OperationGraphOptions = { model, concurrency: 16, budget: { maxCalls: 40 }, timeoutMs: 120_000 };
 * ```
 */
export interface OperationGraphOptions {
  /** Needed when an operation calls the model; a resume needs the same `modelId`. */
  model?: LanguageModel;
  /** Model calls in flight at once, across all operations. Default 16. */
  concurrency?: number;
  /** Limits on the run's model calls (a `Budget`, `budget.perRun()` or plain limits); a resumed run's log counts against it. */
  budget?: RunBudget;
  /** Wall time of the run, in milliseconds: it then stops with `timeout` and its partial graph. */
  timeoutMs?: number;
  /** Reject the run at the first dropped thought or failed operation, with its error (for tests). Default false. */
  strict?: boolean;
  /** Clock for event timestamps and `wallMs`. Default `Date.now`. */
  now?: () => number;
}

/**
 * Options of {@link OperationGraph.run}.
 *
 * @example
 * ```ts
 * import type { OperationGraphRunOptions } from '@tot/core/graph';
 *
 * const options: OperationGraphRunOptions<{ list: number[] }> = { model, input: { list: [3, 1, 2] }, concurrency: 16, budget: { maxCalls: 40 } };
 * ```
 */
export interface OperationGraphRunOptions<S> extends OperationGraphOptions, RunOptions<GraphEvent<S>> {
  /** The state of the run's input thought (JSON-serialisable when the run is recorded). */
  input: S;
}

/**
 * Options of {@link OperationGraph.resume}: where the run was recorded, and the run options it was
 * recorded with (its input comes from the log).
 *
 * @example
 * ```ts
 * import type { OperationGraphResumeOptions } from '@tot/core/graph';
 *
 * const options: OperationGraphResumeOptions<{ list: number[] }> = { store, runId: 'sort-7', model };
 * ```
 */
export interface OperationGraphResumeOptions<S> extends OperationGraphOptions, ResumeOptions<GraphEvent<S>> {}

const ID = /^[A-Za-z][\w-]{0,63}$/;

const operationSchema = z.custom<Operation<unknown>>(
  (v) => typeof v === 'object' && v !== null && typeof (v as Operation<unknown>).kind === 'string' && typeof (v as Operation<unknown>).execute === 'function' && typeof (v as Operation<unknown>).describe === 'function',
  'expected an operation ({ kind, describe, execute }), such as generate({ … })',
);
const addSchema = z.strictObject({ after: z.array(z.union([z.string(), z.looseObject({ id: z.string() })])).optional(), id: z.string().regex(ID, 'an id is a letter, then letters, digits, _ or - (64 at most)').optional() });

const shared = {
  model: languageModelSchema.optional(),
  concurrency: z.number().int().min(1).max(10_000).default(16),
  ...runnerOptionsShape,
};
const runSchema = z.strictObject({ ...shared, ...runOptionsShape, input: z.unknown().refine((v) => v !== undefined, 'give the state of the input thought') });
const resumeSchema = z.strictObject({ ...shared, ...resumeOptionsShape });

/**
 * The Graph of Operations of the Graph-of-Thoughts paper (Besta et al.): operations that generate,
 * score, keep the best of, aggregate (merge), improve, validate and select thoughts, wired into a
 * graph with `add(op, { after })`. An operation runs as soon as its own predecessors are done and
 * works on their outputs, concatenated in the order they were listed; there is no barrier, so
 * independent operations, and the calls inside each, run at once up to `concurrency`, under one
 * budget. Every thought has a deterministic id (`<operation>.<index>`) and knows its operation and
 * parents. Runs are recorded to any event store and resumed like every runner; a parse that
 * throws or returns nothing drops its thought (listed in `errors`; `strict` rejects).
 *
 * @example
 * ```ts
 * import { generate, keepBest, OperationGraph, score } from '@tot/core/graph';
 *
 * type S = { list: number[] };
 * const g = new OperationGraph<S>();
 * g.add(generate<S>({ prompt: (s) => `Sort ${JSON.stringify(s.list)}; answer with the list.`, parse: (t) => ({ list: JSON.parse(t) }), responses: 5 }));
 * g.add(score<S>({ score: (s) => s.list.filter((x, i) => i > 0 && s.list[i - 1]! > x).length }));
 * g.add(keepBest({ n: 1, higherIsBetter: false }));
 * const { thoughts, graph } = await g.run({ model, input: { list: [3, 1, 2] } });
 * console.log(thoughts[0]?.state.list, graph.toMermaid());
 * ```
 */
export class OperationGraph<S = unknown> extends RunEmitter<GraphEvent<S>> {
  private readonly ops: GraphOp<S>[] = [];

  /**
   * The operations added so far, in order.
   *
   * @example
   * ```ts
   * g.operations.map((o) => `${o.id}: ${o.kind}`);
   * ```
   */
  get operations(): readonly OperationRef[] {
    return this.ops.map((o) => Object.freeze({ id: o.id, kind: o.kind }));
  }

  /**
   * Adds an operation; returns its handle.
   *
   * @example
   * ```ts
   * const left = g.add(select<S>((ts) => ts.filter((t) => t.state.part === 'List 1')), { after: [split], id: 'left' });
   * ```
   */
  add(operation: Operation<S>, options: AddOperationOptions = {}): OperationRef {
    const op = parseOptions(operationSchema, operation, 'OperationGraph.add', 'operation') as Operation<S>;
    const o = parseOptions(addSchema, options, 'OperationGraph.add');
    const id = o.id ?? `op${this.ops.length}`;
    if (this.ops.some((x) => x.id === id) || id === 'input') throw new TotError('INVALID_ARGUMENT', `OperationGraph.add: options.id: an operation "${id}" is already in the graph${id === 'input' ? ' ("input" names the run\'s input)' : ''}.`, { details: { field: 'options.id' } });
    const after = o.after === undefined ? this.leaves() : o.after.map((ref) => (typeof ref === 'string' ? ref : ref.id));
    after.forEach((ref, i) => {
      if (!this.ops.some((x) => x.id === ref)) throw new TotError('INVALID_ARGUMENT', `OperationGraph.add: options.after[${i}]: no operation "${ref}" in this graph (add an operation before the ones that follow it).`, { details: { field: `options.after[${i}]` } });
    });
    if (new Set(after).size !== after.length) throw new TotError('INVALID_ARGUMENT', 'OperationGraph.add: options.after: an operation is listed twice.', { details: { field: 'options.after' } });
    this.ops.push({ id, kind: op.kind, after, operation: op });
    return Object.freeze({ id, kind: op.kind });
  }

  private leaves(): string[] {
    const followed = new Set(this.ops.flatMap((o) => o.after));
    return this.ops.filter((o) => !followed.has(o.id)).map((o) => o.id);
  }

  /**
   * The graph of operations as a Mermaid flowchart (the graph of thoughts of a run is
   * `result.graph.toMermaid()`).
   *
   * @example
   * ```ts
   * console.log(g.toMermaid());
   * ```
   */
  toMermaid(): string {
    const node = (id: string) => `o_${id.replace(/[^A-Za-z0-9]/g, '_')}`;
    const lines = ['flowchart TD', '  o__input(["input"])'];
    for (const op of this.ops) lines.push(`  ${node(op.id)}["${op.id} · ${op.kind}"]`);
    for (const op of this.ops) for (const from of op.after.length === 0 ? ['_input'] : op.after) lines.push(`  ${node(from)} --> ${node(op.id)}`);
    return lines.join('\n');
  }

  private settings(ops: readonly GraphOp<S>[], o: z.output<typeof runSchema> | z.output<typeof resumeSchema>): RunSettings<GraphEvent<S>> {
    for (const op of ops) {
      if (op.operation.usesModel && o.model === undefined) throw new TotError('INVALID_ARGUMENT', `OperationGraph: options.model: operation ${op.id} (${op.kind}) calls the model; give a model.`, { details: { field: 'options.model' } });
    }
    return {
      runner: 'graph',
      what: 'graph run',
      emitter: this,
      options: o,
      concurrency: o.concurrency,
      config: {
        modelId: o.model?.modelId,
        operations: ops.map((op) => ({ id: op.id, kind: op.kind, after: [...op.after], ...op.operation.describe() })),
      },
      replayLog: (events: readonly RunEventBase[]) => foldGraphLog(events),
      resumeBy: 'fold',
    };
  }

  private snapshot(): GraphOp<S>[] {
    if (this.ops.length === 0) throw new TotError('INVALID_ARGUMENT', 'OperationGraph: the graph has no operation; add() some first.', { details: { field: 'operations' } });
    return this.ops.map((op) => ({ ...op, after: [...op.after] }));
  }

  /**
   * Runs the graph on `input`.
   *
   * @example
   * ```ts
   * const r = await g.run({ model, input: { list: [3, 1, 2] }, concurrency: 16, budget: { maxCalls: 50 }, signal });
   * r.stopReason; r.thoughts; r.graph.toJSON(); r.errors;
   * ```
   */
  run(options: OperationGraphRunOptions<S>): Promise<OperationGraphResult<S>> {
    try {
      const o = parseOptions(runSchema, options, 'OperationGraph.run');
      const ops = this.snapshot();
      const input = o.input as S;
      const problem = JSON.stringify(input) ?? String(input);
      return startRun<GraphEvent<S>, OperationGraphResult<S>>(this.settings(ops, o), o, { problem: problem.length > 2000 ? `${problem.slice(0, 1999)}…` : problem, input: { state: input as unknown } }, (run) =>
        graphProgram(ops, run, o.model, input),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Continues a run recorded with `run({ store, runId, … })` that was interrupted: the operations
   * its log finished are taken as they were, the others run with every recorded model call served
   * from the log (none is made twice). The graph and the options must be those it was recorded
   * with (`RESUME_MISMATCH`, nothing written, otherwise); a finished run is returned as it was.
   *
   * @example
   * ```ts
   * const r = await g.resume({ store, runId: 'sort-7', model });
   * ```
   */
  resume(options: OperationGraphResumeOptions<S>): Promise<OperationGraphResult<S>> {
    try {
      const o = parseOptions(resumeSchema, options, 'OperationGraph.resume');
      const ops = this.snapshot();
      return resumeRun<GraphEvent<S>, OperationGraphResult<S>>(this.settings(ops, o), o, {
        fromLog: (log) => resultFromLog(ops, log),
        program: (run, log) => {
          const folded = foldGraphLog<S>(log.events);
          return graphProgram(ops, run, o.model, folded.graph.input.state, folded);
        },
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** A finished graph run rebuilt from its log. */
function resultFromLog<S>(ops: readonly GraphOp<S>[], log: RecordedRun): OperationGraphResult<S> {
  const finished = log.finished!;
  const { graph } = foldGraphLog<S>(log.events);
  return {
    runId: log.runId,
    stopReason: finished.stopReason as GraphStopReason,
    ...(finished.detail ? { detail: finished.detail } : {}),
    thoughts: leafOutputs(ops, graph),
    graph,
    errors: finished.errors.map((e) => ({ code: e.code as OperationGraphResult<S>['errors'][number]['code'], message: e.message, ...(e.where ? { where: e.where } : {}) })),
    stats: finished.stats as unknown as GraphStats,
  };
}

