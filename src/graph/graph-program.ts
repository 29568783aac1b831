import type { AskAnswer, AskRequest } from '../run/question.js';
import type { StandardSchemaV1 } from '../internal/standard-schema.js';
import { TotError, type ErrorLocation, type ProtocolErrorObject, type TotErrorCode } from '../errors/index.js';
import { callModel } from '../model/call-model.js';
import type { CallOptions, GenerateRequest, LanguageModel } from '../model/types.js';
import { CALL_PRIORITY } from '../run/call-gate.js';
import type { RunEnd, Run, RunProgram } from '../run/run.js';
import type { RunResult, RunStats } from '../run/run-result.js';
import type { SharedStopReason } from '../run/stop-detail.js';
import type { GraphEvent, ThoughtRecord } from './graph-events.js';
import type { Operation, OperationContext } from './operation.js';
import { INPUT_THOUGHT_ID, makeThought, type GraphThought, type ThoughtMarks } from './thought.js';
import { GraphParts, ThoughtGraph, type GraphLog, type OperationInfo } from './thought-graph.js';

/**
 * Why an operation-graph run stopped: the shared reasons (`completed`, `budget_exceeded`,
 * `aborted`, `timeout`, `error`).
 *
 * @example
 * ```ts
 * import type { GraphStopReason } from '@tot/core/graph';
 *
 * const partial = (r: GraphStopReason) => r !== 'completed';
 * ```
 */
export type GraphStopReason = SharedStopReason;

/**
 * Counters of an operation-graph run: the shared {@link RunStats} and the graph's own.
 *
 * @example
 * ```ts
 * import type { GraphStats } from '@tot/core/graph';
 *
 * const summary = (s: GraphStats) => `${s.operations} operations, ${s.thoughts} thoughts, ${s.droppedThoughts} dropped`;
 * ```
 */
export interface GraphStats extends RunStats {
  /** Operations that completed. */
  operations: number;
  /** Operations that failed (they pass nothing on). */
  failedOperations: number;
  /** Thoughts the operations made (the input not counted). */
  thoughts: number;
  /** Thoughts dropped: parses that threw or returned nothing, failed calls, failed checks. */
  droppedThoughts: number;
}

/**
 * What an operation-graph run returns: the output thoughts of its last operations (those no other
 * operation follows, in the order they were added), the whole graph of thoughts, and the shared
 * result fields. A run that stopped early (budget, time) returns what its completed operations made.
 *
 * @example
 * ```ts
 * import type { OperationGraphResult } from '@tot/core/graph';
 *
 * const best = (r: OperationGraphResult<{ list: number[] }>) => r.thoughts[0]?.state.list;
 * ```
 */
export interface OperationGraphResult<S> extends RunResult<GraphStopReason, GraphStats> {
  thoughts: GraphThought<S>[];
  graph: ThoughtGraph<S>;
}

/** An operation as a run holds it. */
export interface GraphOp<S> extends OperationInfo {
  operation: Operation<S>;
}

function protocolError(error: unknown, code: TotErrorCode): ProtocolErrorObject {
  return TotError.isInstance(error) ? error.toProtocolError() : { code, message: error instanceof Error ? error.message : String(error), recoverable: false };
}

/** The outputs of the operations no other operation follows, in the order they were added. */
export function leafOutputs<S>(ops: readonly OperationInfo[], graph: ThoughtGraph<S>): GraphThought<S>[] {
  const followed = new Set(ops.flatMap((o) => o.after));
  return ops.filter((o) => !followed.has(o.id)).flatMap((o) => [...(graph.outputsOf(o.id) ?? [])]);
}

/** What every operation of one graph run shares. */
interface ProgramParts<S> {
  run: Run<GraphEvent<S>>;
  model: LanguageModel | undefined;
  /** Per operation: the longest chain of model operations from it to the end of the graph. */
  chain: Map<string, number>;
  stats: { droppedThoughts: number };
  where: (op: GraphOp<S>, parentIds?: readonly string[]) => ErrorLocation;
}

/** What an operation works with: one per operation run. */
class Context<S> implements OperationContext<S> {
  readonly created: GraphThought<S>[] = [];
  readonly signal: AbortSignal;
  readonly model: LanguageModel | undefined;

  constructor(
    readonly op: GraphOp<S>,
    private readonly p: ProgramParts<S>,
  ) {
    this.signal = p.run.signal;
    this.model = p.model;
  }

  get operationId(): string {
    return this.op.id;
  }

  async generate(request: GenerateRequest): Promise<string[]> {
    const op = this.op;
    if (!this.model) throw new TotError('INVALID_ARGUMENT', `Operation ${op.id} (${op.kind}) calls the model, and the run has none: give run() a model.`);
    const options = { signal: this.signal, [CALL_PRIORITY]: this.p.chain.get(op.id)! } as CallOptions;
    const result = await callModel(this.model, { ...request, tags: { ...request.tags, role: op.kind, operation: op.id, kind: op.kind } }, options);
    return result.outputs;
  }

  thought(state: S, parents: readonly GraphThought<S>[], marks?: ThoughtMarks): GraphThought<S> {
    const parentIds = parents.length === 1 ? [parents[0]!.id] : parents.map((p) => p.id);
    const t = makeThought(`${this.op.id}.${this.created.length}`, this.op.id, parentIds, state, marks);
    this.created.push(t);
    return t;
  }

  derive(from: GraphThought<S>, marks?: ThoughtMarks): GraphThought<S> {
    return this.thought(from.state, [from], marks === undefined ? from : { score: from.score, valid: from.valid, solved: from.solved, ...marks });
  }

  ask<A extends StandardSchemaV1 | undefined = undefined>(request: AskRequest<NonNullable<A>> & { schema?: A }): Promise<AskAnswer<A>> {
    return this.p.run.ask(request, this.p.where(this.op));
  }

  drop(error: unknown, parents: readonly GraphThought<S>[], response?: string): void {
    const { run, stats, where } = this.p;
    if (run.stopping) throw error;
    const op = this.op;
    const parentIds = parents.map((p) => p.id);
    const recorded = run.recordError(error, where(op, parentIds));
    stats.droppedThoughts += 1;
    const e = TotError.isInstance(error) ? error.toProtocolError() : { code: recorded.code, message: recorded.message, recoverable: true };
    run.emit({ type: 'thought.dropped', operationId: op.id, operation: op.kind, parentIds, error: e, ...(response === undefined ? {} : { response }) });
  }

  guard<T>(work: () => T | Promise<T>, what: string): Promise<T> {
    return this.p.run.guard(work, what);
  }
}

/**
 * One run of an operation graph. Each operation is a promise that waits for its own predecessors
 * only (no barrier between levels), so independent operations, and the calls inside each, run at
 * once under the run's concurrency. A resumed run (`log`) takes the operations its log finished as
 * they were, and runs the rest with their recorded calls served from the log.
 */
export function graphProgram<S>(ops: readonly GraphOp<S>[], run: Run<GraphEvent<S>>, model: LanguageModel | undefined, input: S, log?: GraphLog<S>): RunProgram<OperationGraphResult<S>> {
  const parts = new GraphParts<S>(makeThought(INPUT_THOUGHT_ID, 'input', [], input, undefined));
  const graph = new ThoughtGraph<S>(ops, parts);
  const stats = { operations: 0, failedOperations: 0, thoughts: 0, droppedThoughts: 0 };
  const runModel = model ? run.runModel(model) : undefined;
  const outputs = new Map<string, Promise<readonly GraphThought<S>[]>>();
  const byId = new Map(ops.map((o) => [o.id, o]));
  // Calls wait for a slot by the longest chain of model operations from theirs to the end of the
  // graph (critical path first): on the sorting batch benchmark, arrival order left the last
  // improvements for last and took 1.46 times the schedule's lower bound.
  const chain = new Map<string, number>();
  for (let i = ops.length - 1; i >= 0; i--) {
    // Operations come after their predecessors, so every successor of ops[i] is already counted.
    const op = ops[i]!;
    const mine = (chain.get(op.id) ?? 0) + (op.operation.usesModel ? 1 : 0);
    chain.set(op.id, mine);
    for (const before of op.after) chain.set(before, Math.max(chain.get(before) ?? 0, mine));
  }
  const where = (op: GraphOp<S>, parentIds?: readonly string[]): ErrorLocation => ({ kind: 'operation', operationId: op.id, operation: op.kind, ...(parentIds ? { parentIds: [...parentIds] } : {}) });

  if (log) {
    // The calls of the operations the log finished are theirs: counted, and never served to another.
    const finished = new Set(log.finished);
    run.adoptLoggedCalls((request) => finished.has(request.tags?.operation ?? ''));
    // The operations the log finished, in the order it finished them: the graph as it was.
    for (const id of log.finished) {
      const op = byId.get(id)!;
      for (const d of log.dropped.get(id) ?? []) {
        stats.droppedThoughts += 1;
        run.recordError(new TotError(d.error.code as TotErrorCode, d.error.message), where(op, d.parentIds));
      }
      const failure = log.graph.errorOf(id);
      if (failure) {
        stats.failedOperations += 1;
        parts.fail(id, failure);
        run.recordError(new TotError(failure.code as TotErrorCode, failure.message), where(op));
        outputs.set(id, Promise.resolve([]));
        continue;
      }
      const made = log.graph.thoughtsOf(id);
      const out = parts.complete(id, made, (log.graph.outputsOf(id) ?? []).map((t) => t.id));
      stats.operations += 1;
      stats.thoughts += made.length;
      outputs.set(id, Promise.resolve(out));
    }
  }

  const program: ProgramParts<S> = { run, model: runModel, chain, stats, where };

  const execute = async (op: GraphOp<S>): Promise<readonly GraphThought<S>[]> => {
    let inputs: readonly GraphThought<S>[];
    if (op.after.length === 0) inputs = [graph.input];
    else if (op.after.length === 1) inputs = await exec(byId.get(op.after[0]!)!);
    else inputs = ([] as GraphThought<S>[]).concat(...(await Promise.all(op.after.map((id) => exec(byId.get(id)!)))));
    // A stopping run starts no operation.
    if (run.stopping) throw new TotError('ABORTED', 'The graph run stopped.');
    run.emit({ type: 'operation.started', operationId: op.id, operation: op.kind, inputIds: inputs.map((t) => t.id) });
    const ctx = new Context<S>(op, program);
    const created = ctx.created;
    let result: readonly GraphThought<S>[];
    try {
      result = await run.guard(() => op.operation.execute(inputs, ctx), 'operation');
      if (!Array.isArray(result)) throw new TotError('INVALID_FORMAT', `Operation ${op.id} (${op.kind}) returned ${typeof result}, not an array of thoughts.`);
      // Ids name the operation and their index in it: a thought of this operation is the one at its index.
      for (const t of result) if (t?.operationId !== op.id || created[Number(t.id.slice(op.id.length + 1))] !== t) throw new TotError('INVALID_FORMAT', `Operation ${op.id} (${op.kind}) returned a thought it did not make with its context (thought() or derive()).`);
    } catch (error) {
      if (run.stopping) throw error;
      const recorded = run.recordError(error, where(op));
      const e = protocolError(error, recorded.code);
      stats.failedOperations += 1;
      parts.fail(op.id, e);
      run.emit({ type: 'operation.failed', operationId: op.id, operation: op.kind, error: e });
      return [];
    }
    const out = [...result];
    parts.add(op.id, created, out);
    stats.operations += 1;
    stats.thoughts += created.length;
    // The thoughts are frozen: the event can hold them as they are.
    run.emit({ type: 'operation.completed', operationId: op.id, operation: op.kind, thoughts: created as unknown as ThoughtRecord<S>[], outputIds: out.map((t) => t.id) });
    return out;
  };

  const exec = (op: GraphOp<S>): Promise<readonly GraphThought<S>[]> => {
    let pending = outputs.get(op.id);
    if (!pending) {
      pending = execute(op);
      outputs.set(op.id, pending);
    }
    return pending;
  };

  return {
    async main() {
      await Promise.all(ops.map(exec));
    },
    result(end: RunEnd): OperationGraphResult<S> {
      const stopReason: GraphStopReason = end.halted?.reason ?? 'completed';
      const detail = end.halted?.detail;
      return { runId: end.runId, stopReason, ...(detail ? { detail } : {}), thoughts: leafOutputs(ops, graph), graph, errors: end.errors, stats: { ...end.stats, ...stats } };
    },
  };
}
