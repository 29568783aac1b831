import pLimit from 'p-limit';
import { z } from 'zod';
import type { Budget } from '../budget/budget.js';
import { TotError } from '../errors/index.js';
import type { RunEvent, RunEventInput } from '../events/run-event.js';
import { abortedError, raceAbort } from '../internal/abort.js';
import { UsageMeter } from '../model/usage-meter.js';
import { requestKey } from '../model/request-key.js';
import type { GenerateRequest, GenerateResult } from '../model/types.js';
import type { Candidate, EvaluationBatch, ModelCallLog, RoleCallOptions, Scheduler, TaskContext, ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import type { ThoughtTree } from '../tree/thought-tree.js';
import type { Evaluation, ThoughtNode } from '../tree/types.js';
import { selectGreedy, selectSample } from './selection.js';
import type { DistributiveOmit, SearchContext, SearchLimits, SearchStats, SelectOptions, StopReason } from './types.js';

export interface SearchRunInit {
  tree: ThoughtTree;
  runId: string;
  context: TaskContext;
  limits: SearchLimits;
  generator: ThoughtGenerator;
  evaluator: ThoughtEvaluator;
  signal: AbortSignal;
  budget: Budget | undefined;
  random: () => number;
  stateKey: ((node: ThoughtNode, tree: ThoughtTree) => string) | undefined;
  isSolution: ((node: ThoughtNode, tree: ThoughtTree) => boolean | Promise<boolean>) | undefined;
  emit: (event: RunEventInput<RunEvent>) => void;
  /** Model results recorded before a resume, by request key. */
  served?: Map<string, GenerateResult[]>;
  /** Resolves once every event so far is stored (recorded runs). */
  durable?: () => Promise<void>;
}

const candidateSchema = z.object({
  content: z.string(),
  actionType: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const evaluationSchema = z.object({
  score: z.number().min(0).max(10),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  dimensionScores: z.record(z.string(), z.number()).optional(),
});

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * A node as it is now. The tree replaces (never mutates) a node's evaluation and metadata objects,
 * so only the children list needs copying.
 */
export function snapshot(node: ThoughtNode): ThoughtNode {
  return { ...node, childrenIds: [...node.childrenIds] };
}

export function emptyStats(): SearchStats {
  return {
    totalNodes: 0,
    totalBacktracks: 0,
    llmCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheHits: 0,
    dedupedStates: 0,
    duplicateCandidates: 0,
    invalidCandidates: 0,
    generatorCalls: 0,
    evaluatorCalls: 0,
    expandedNodes: 0,
    prunedNodes: 0,
    errors: 0,
    resumedCalls: 0,
    wallMs: 0,
  };
}

/** One run's state behind the {@link SearchContext} that strategies see. */
export class SearchRun implements SearchContext, ModelCallLog {
  readonly tree: ThoughtTree;
  readonly runId: string;
  readonly context: TaskContext;
  readonly limits: SearchLimits;
  readonly signal: AbortSignal;
  readonly budget: Budget | undefined;
  readonly random: () => number;
  readonly meter = new UsageMeter();
  readonly counters = emptyStats();
  readonly found: ThoughtNode[] = [];
  chosenPath: ThoughtNode[] | undefined;
  private stopReason: StopReason | undefined;
  private readonly evaluations = new Map<string, Evaluation>();
  private readonly schedule: Scheduler;
  private readonly init: SearchRunInit;
  private callIds = 0;

  constructor(init: SearchRunInit) {
    this.init = init;
    this.tree = init.tree;
    this.runId = init.runId;
    this.context = init.context;
    this.limits = init.limits;
    this.signal = init.signal;
    this.budget = init.budget;
    this.random = init.random;
    const gate = pLimit(init.limits.concurrency);
    // A queued call whose run has been aborted must never start.
    this.schedule = <T>(task: () => Promise<T>): Promise<T> =>
      raceAbort(
        gate(() => {
          if (this.signal.aborted) return Promise.reject(abortedError(this.signal, 'model call'));
          return task();
        }),
        this.signal,
        'model call',
      );
  }

  get stopped(): StopReason | undefined {
    return this.stopReason;
  }

  get stats(): Readonly<SearchStats> {
    return this.counters;
  }

  get solutions(): readonly ThoughtNode[] {
    return this.found;
  }

  private callOptions(): RoleCallOptions {
    return { signal: this.signal, schedule: this.schedule, meter: this.meter, modelCalls: this, ...(this.budget ? { budget: this.budget } : {}) };
  }

  recorded(modelId: string, request: GenerateRequest): GenerateResult | undefined {
    const list = this.init.served?.get(requestKey(modelId, request));
    const result = list?.shift();
    if (result) this.counters.resumedCalls += 1;
    return result;
  }

  started(modelId: string, request: GenerateRequest): string {
    const callId = `call-${++this.callIds}`;
    this.emit({ type: 'llm.requested', callId, modelId, requestKey: requestKey(modelId, request), n: request.n ?? 1, ...(request.tags ? { tags: { ...request.tags } } : {}) });
    return callId;
  }

  async completed(callId: string, result: GenerateResult, durationMs: number): Promise<void> {
    this.emit({
      type: 'llm.completed',
      callId,
      outputs: [...result.outputs],
      usage: { ...result.usage },
      ...(result.finishReason ? { finishReason: result.finishReason } : {}),
      ...(result.cacheHit ? { cacheHit: true } : {}),
      durationMs,
    });
    await this.init.durable?.();
  }

  failed(callId: string, error: unknown): void {
    const e = TotError.isInstance(error) ? error.toProtocolError() : { code: 'GENERATION_FAILED', message: message(error), recoverable: true };
    this.emit({ type: 'llm.failed', callId, error: e });
  }

  stop(reason: StopReason): void {
    this.stopReason ??= reason;
  }

  /** Stops the run if `error` is an abort or a budget refusal; returns whether it did. */
  private stopsRun(error: unknown): boolean {
    if (TotError.hasCode(error, 'BUDGET_EXCEEDED')) {
      this.stop('budget_exceeded');
      return true;
    }
    if (this.signal.aborted || TotError.hasCode(error, 'ABORTED')) {
      this.stop(TotError.hasCode(this.signal.reason, 'BUDGET_EXCEEDED') ? 'budget_exceeded' : 'aborted');
      return true;
    }
    return false;
  }

  private fail(node: ThoughtNode, reason: string): void {
    this.counters.errors += 1;
    if (node.status === 'pruned') return;
    this.updateMetadata(node, { error: reason });
    this.prune(node, reason);
  }

  emit(event: DistributiveOmit<RunEventInput<RunEvent>, 'runId'>): void {
    this.init.emit({ ...event, runId: this.runId } as RunEventInput<RunEvent>);
  }

  async expand(parents: readonly ThoughtNode[]): Promise<ThoughtNode[]> {
    if (this.stopReason) return [];
    if (this.budget?.snapshot().exhausted) {
      this.stop('budget_exceeded');
      return [];
    }
    const eligible = parents.filter((p) => this.tree.node(p.id).status === 'pending' && p.depth < this.limits.maxDepth);
    const k = this.limits.branchingFactor;
    this.counters.generatorCalls += eligible.length;
    const results = await Promise.allSettled(
      eligible.map((parent) =>
        Promise.resolve().then(() => this.init.generator.generate({ tree: this.tree, parent, k, context: this.context }, this.callOptions())),
      ),
    );
    const children: ThoughtNode[] = [];
    eligible.forEach((parent, i) => {
      const result = results[i]!;
      if (result.status === 'rejected') {
        if (!this.stopsRun(result.reason)) this.fail(parent, `generation failed: ${message(result.reason)}`);
        return;
      }
      const candidates = this.validCandidates(result.value, parent, k);
      if (candidates === undefined) return;
      const added = this.addCandidates(parent, candidates);
      children.push(...added);
    });
    return children;
  }

  private validCandidates(value: unknown, parent: ThoughtNode, k: number): Candidate[] | undefined {
    if (!Array.isArray(value)) {
      this.fail(parent, `generation failed: the generator returned ${value === null ? 'null' : typeof value}, not an array of candidates`);
      return undefined;
    }
    const valid: Candidate[] = [];
    for (const item of value) {
      const parsed = candidateSchema.safeParse(item);
      if (parsed.success) valid.push(parsed.data as Candidate);
      else this.counters.invalidCandidates += 1;
    }
    return valid.slice(0, k);
  }

  private addCandidates(parent: ThoughtNode, candidates: Candidate[]): ThoughtNode[] {
    this.counters.expandedNodes += 1;
    if (candidates.length === 0) {
      // A parent with no valid candidates is a dead end: expanded, with no children.
      this.tree.setStatus(parent.id, 'expanded');
      this.emit({ type: 'node.expanded', nodeId: parent.id, childIds: [] });
      return [];
    }
    const firstByText = new Map<string, string>();
    const added = candidates.map((candidate) => {
      const identity = `${candidate.actionType ?? ''}\u0000${candidate.content}`;
      const original = firstByText.get(identity);
      const metadata = original === undefined ? candidate.metadata : { ...candidate.metadata, duplicateOf: original };
      const node = this.tree.addChild(parent.id, {
        content: candidate.content,
        ...(candidate.actionType === undefined ? {} : { actionType: candidate.actionType }),
        ...(metadata === undefined ? {} : { metadata }),
      });
      if (original === undefined) firstByText.set(identity, node.id);
      else this.counters.duplicateCandidates += 1;
      this.emit({ type: 'node.created', node: snapshot(node) });
      return node;
    });
    this.emit({ type: 'node.expanded', nodeId: parent.id, childIds: added.map((n) => n.id) });
    return added;
  }

  async evaluate(nodes: readonly ThoughtNode[]): Promise<ThoughtNode[]> {
    if (this.stopReason) return [];
    const fresh = nodes.filter((n) => n.status === 'pending' && n.evaluation === null);
    const toEvaluate: ThoughtNode[] = [];
    const copies: { node: ThoughtNode; from: string; key?: string }[] = [];
    const keyOwner = new Map<string, string>();
    for (const node of fresh) {
      const duplicateOf = node.metadata.duplicateOf;
      if (typeof duplicateOf === 'string') {
        this.apply(node, { score: 0, confidence: 1, reasoning: `duplicate of ${duplicateOf}` });
        continue;
      }
      if (!this.init.stateKey) {
        toEvaluate.push(node);
        continue;
      }
      let key: string;
      try {
        key = this.init.stateKey(node, this.tree);
      } catch (error) {
        this.fail(node, `stateKey failed: ${message(error)}`);
        continue;
      }
      const cached = this.evaluations.get(key);
      if (cached) {
        this.counters.dedupedStates += 1;
        this.updateMetadata(node, { dedupedState: key });
        this.apply(node, cached);
        continue;
      }
      const owner = keyOwner.get(key);
      if (owner !== undefined) copies.push({ node, from: owner, key });
      else {
        keyOwner.set(key, node.id);
        toEvaluate.push(node);
      }
    }
    if (toEvaluate.length > 0) await this.callEvaluator(toEvaluate, keyOwner);
    for (const { node, from, key } of copies) {
      const source = this.tree.node(from).evaluation;
      if (source === null || this.stopReason) {
        if (!this.stopReason) this.fail(node, `the evaluation of equal state ${from} failed`);
        continue;
      }
      this.counters.dedupedStates += 1;
      this.updateMetadata(node, { dedupedState: key });
      this.apply(node, source);
    }
    if (!this.stopReason) await this.settle(fresh);
    return nodes.map((n) => this.tree.node(n.id));
  }

  private async callEvaluator(candidates: ThoughtNode[], keyOwner: Map<string, string>): Promise<void> {
    this.counters.evaluatorCalls += 1;
    let batch: EvaluationBatch;
    try {
      batch = await Promise.resolve().then(() => this.init.evaluator.evaluate({ tree: this.tree, candidates, context: this.context }, this.callOptions()));
    } catch (error) {
      if (!this.stopsRun(error)) for (const node of candidates) this.fail(node, `evaluation failed: ${message(error)}`);
      return;
    }
    const byId = new Map<string, unknown>();
    const list: unknown = (batch as { evaluations?: unknown } | null)?.evaluations;
    if (Array.isArray(list)) {
      for (const e of list) {
        const id = (e as { nodeId?: unknown } | null)?.nodeId;
        if (typeof id === 'string' && !byId.has(id)) byId.set(id, e);
      }
    }
    const keys = new Map([...keyOwner].map(([key, id]) => [id, key]));
    for (const node of candidates) {
      const raw = byId.get(node.id);
      if (raw === undefined) {
        this.fail(node, 'evaluation missing: the evaluator returned no evaluation for this node');
        continue;
      }
      const parsed = evaluationSchema.safeParse(raw);
      if (!parsed.success) {
        this.fail(node, `invalid evaluation: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
        continue;
      }
      const evaluation = parsed.data as Evaluation;
      const key = keys.get(node.id);
      if (key !== undefined) this.evaluations.set(key, evaluation);
      this.apply(node, evaluation);
    }
  }

  /** Every change to the tree is an event, so that a recorded run folds back into the same tree. */
  private updateMetadata(node: ThoughtNode, patch: Record<string, unknown>): void {
    this.tree.updateMetadata(node.id, patch);
    this.emit({ type: 'node.metadata', nodeId: node.id, patch });
  }

  private apply(node: ThoughtNode, evaluation: Evaluation): void {
    this.tree.evaluate(node.id, evaluation);
    this.emit({ type: 'node.evaluated', nodeId: node.id, evaluation: { ...evaluation } });
  }

  /** Marks solutions terminal and prunes what scores under the threshold, in node order. */
  private async settle(nodes: readonly ThoughtNode[]): Promise<void> {
    const scored = nodes.filter((n) => n.status === 'pending' && n.evaluation !== null);
    const verdicts = this.init.isSolution
      ? await Promise.all(
          scored.map((n) =>
            Promise.resolve()
              .then(() => this.init.isSolution!(n, this.tree))
              .then(
                (v) => ({ ok: true as const, solution: v === true }),
                (error: unknown) => ({ ok: false as const, error }),
              ),
          ),
        )
      : scored.map(() => ({ ok: true as const, solution: false }));
    scored.forEach((node, i) => {
      const verdict = verdicts[i]!;
      if (!verdict.ok) return this.fail(node, `isSolution failed: ${message(verdict.error)}`);
      if (verdict.solution) {
        this.markTerminal(node, { solution: true });
        if (this.limits.stopOnSolution) this.stop('solution_found');
        return;
      }
      if (node.evaluation!.score < this.limits.pruningThreshold) this.prune(node, `score ${node.evaluation!.score} is below the pruning threshold ${this.limits.pruningThreshold}`);
    });
  }

  select(nodes: readonly ThoughtNode[], k: number, options: SelectOptions = {}): ThoughtNode[] {
    const live = nodes.map((n) => this.tree.node(n.id)).filter((n) => n.status === 'pending');
    return options.mode === 'sample' ? selectSample(live, k, this.random) : selectGreedy(live, k);
  }

  prune(node: ThoughtNode, reason?: string): void {
    const ids = this.tree.prune(node.id);
    if (ids.length === 0) return;
    this.counters.prunedNodes += ids.length;
    this.emit({ type: 'node.pruned', nodeId: node.id, prunedIds: ids, ...(reason === undefined ? {} : { reason }) });
  }

  markTerminal(node: ThoughtNode, options: { solution?: boolean } = {}): void {
    const solution = options.solution === true;
    if (solution) this.updateMetadata(node, { solution: true });
    this.tree.markTerminal(node.id);
    if (solution) this.found.push(this.tree.node(node.id));
    this.emit({ type: 'node.terminal', nodeId: node.id, solution });
  }

  backtrack(): void {
    this.counters.totalBacktracks += 1;
  }

  setBestPath(nodes: readonly ThoughtNode[]): void {
    this.chosenPath = nodes.map((n) => this.tree.node(n.id));
  }
}
