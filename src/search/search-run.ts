import { TotError } from '../errors/index.js';
import type { LanguageModel } from '../model/types.js';
import type { Run } from '../run/run.js';
import type { RunEventInput } from '../run/run-event.js';
import type { Candidate, EvaluationBatch, RoleCallOptions, TaskContext, ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import type { ThoughtTree } from '../tree/thought-tree.js';
import type { Evaluation, NewThought, ThoughtNode } from '../tree/types.js';
import type { SearchEvent } from './search-events.js';
import { selectGreedy, selectSample } from './selection.js';
import type { AskAnswer, AskRequest } from '../run/question.js';
import type { StandardSchemaV1 } from '../internal/standard-schema.js';
import type { SearchContext, SearchLimits, SearchStats, SelectOptions, StopReason } from './types.js';

export interface SearchRunInit {
  run: Run<SearchEvent>;
  tree: ThoughtTree;
  context: TaskContext;
  limits: SearchLimits;
  generator: ThoughtGenerator;
  evaluator: ThoughtEvaluator;
  random: () => number;
  stateKey: ((node: ThoughtNode, tree: ThoughtTree) => string) | undefined;
  isSolution: ((node: ThoughtNode, tree: ThoughtTree) => boolean | Promise<boolean>) | undefined;
  /** The strategy's name: where its questions are asked. */
  strategyName?: string;
}

/** Evaluations by node id, the first of each. */
function indexById(list: readonly unknown[]): Map<string, unknown> {
  const byId = new Map<string, unknown>();
  for (const e of list) {
    const id = (e as { nodeId?: unknown } | null)?.nodeId;
    if (typeof id === 'string' && !byId.has(id)) byId.set(id, e);
  }
  return byId;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * A node as it is now. The tree replaces (never mutates) a node's evaluation and metadata objects,
 * so only the children list needs copying.
 */
export function snapshot(node: ThoughtNode): ThoughtNode {
  // A literal of the node's fields rather than a spread: one per node created, on the hot path.
  return {
    id: node.id,
    parentId: node.parentId,
    childrenIds: node.childrenIds.length === 0 ? [] : node.childrenIds.slice(),
    depth: node.depth,
    content: node.content,
    actionType: node.actionType,
    evaluation: node.evaluation,
    status: node.status,
    metadata: node.metadata,
  };
}

export type SearchCounters = Omit<SearchStats, keyof import('../run/run-result.js').RunStats | 'totalNodes'>;

const emptyCounters = (): SearchCounters => ({
  totalBacktracks: 0,
  dedupedStates: 0,
  duplicateCandidates: 0,
  invalidCandidates: 0,
  generatorCalls: 0,
  evaluatorCalls: 0,
  expandedNodes: 0,
  prunedNodes: 0,
});

/** One search's state behind the {@link SearchContext} that strategies see; its run does the rest. */
export class SearchRun implements SearchContext {
  readonly tree: ThoughtTree;
  readonly runId: string;
  readonly context: TaskContext;
  readonly limits: SearchLimits;
  readonly random: () => number;
  readonly counters = emptyCounters();
  readonly found: ThoughtNode[] = [];
  chosenPath: ThoughtNode[] | undefined;
  /** Role calls that returned and that threw: a search whose every role call failed stops with `error`. */
  roleCalls = { succeeded: 0, failed: 0 };
  private stopReason: StopReason | undefined;
  private readonly evaluations = new Map<string, Evaluation>();
  private readonly init: SearchRunInit;
  private readonly run: Run<SearchEvent>;
  private readonly roleOptions: RoleCallOptions;

  constructor(init: SearchRunInit) {
    this.init = init;
    this.run = init.run;
    this.tree = init.tree;
    this.runId = init.run.runId;
    this.context = init.context;
    this.limits = init.limits;
    this.random = init.random;
    const run = init.run;
    this.roleOptions = { signal: run.signal, runModel: (model) => run.runModel(model) };
  }

  get signal(): AbortSignal {
    return this.run.signal;
  }

  get budget() {
    return this.run.budget;
  }

  get stopped(): StopReason | undefined {
    if (this.stopReason !== undefined) return this.stopReason;
    if (!this.run.stopping) return undefined;
    return this.run.halted?.reason ?? 'aborted';
  }

  /** The reason the strategy gave with `stop()`, if it gave one. */
  get ownStop(): StopReason | undefined {
    return this.stopReason;
  }

  get stats(): Readonly<SearchStats> {
    return { ...this.run.stats, ...this.counters, totalNodes: this.tree.size };
  }

  get solutions(): readonly ThoughtNode[] {
    return this.found;
  }

  runModel(model: LanguageModel): LanguageModel {
    return this.run.runModel(model);
  }

  ask<S extends StandardSchemaV1 | undefined = undefined>(request: AskRequest<NonNullable<S>> & { schema?: S }): Promise<AskAnswer<S>> {
    return this.run.ask(request, { kind: 'strategy', name: this.init.strategyName ?? 'search' });
  }

  stop(reason: StopReason): void {
    this.stopReason ??= reason;
  }

  // The events of every node (created, expanded, evaluated, terminal) carry the envelope's fields
  // in their literal, placed last as stamping would add them: the kernel then fills them in
  // instead of growing a property store per event (the Game of 24 replay benchmark).
  emit(event: RunEventInput<SearchEvent>): void {
    this.run.emit(event);
  }

  /** Whether `error` is the run stopping rather than a finding about this node. */
  private stopping(error: unknown): boolean {
    if (this.run.stopping) return true;
    if (TotError.hasCode(error, 'BUDGET_EXCEEDED')) {
      // A budget the run does not know (a role's own model): it still ends the search.
      this.run.halt('budget_exceeded', { kind: 'budget', limit: error.details?.limit ?? 'calls' }, error);
      return true;
    }
    return false;
  }

  /** Records a failure where it happened (on the node, pruned, and in the run's errors). */
  private fail(node: ThoughtNode, role: 'generator' | 'evaluator' | 'isSolution' | 'stateKey', reason: string, error: unknown): void {
    this.run.recordError(error, { kind: 'node', nodeId: node.id, role });
    if (this.tree.node(node.id).status === 'pruned') return;
    this.updateMetadata(node, { error: reason });
    this.prune(node, reason);
  }

  async expand(parents: readonly ThoughtNode[]): Promise<ThoughtNode[]> {
    if (this.stopped) return [];
    const exhausted = this.run.budgetExhausted;
    if (exhausted) {
      this.run.halt('budget_exceeded', { kind: 'budget', limit: exhausted.limit });
      return [];
    }
    const eligible = parents.filter((p) => this.tree.node(p.id).status === 'pending' && p.depth < this.limits.maxDepth);
    const k = this.limits.branchingFactor;
    this.counters.generatorCalls += eligible.length;
    const { generator } = this.init;
    const results = await Promise.allSettled(
      eligible.map((parent) => this.run.guard(() => generator.generate({ tree: this.tree, parent, k, context: this.context }, this.roleOptions), 'generator')),
    );
    const children: ThoughtNode[] = [];
    eligible.forEach((parent, i) => {
      const result = results[i]!;
      if (result.status === 'rejected') {
        if (this.stopping(result.reason)) return;
        this.roleCalls.failed += 1;
        this.fail(parent, 'generator', `generation failed: ${message(result.reason)}`, result.reason);
        return;
      }
      if (!Array.isArray(result.value)) {
        this.roleCalls.failed += 1;
        const got = result.value === null ? 'null' : typeof result.value;
        this.fail(parent, 'generator', `generation failed: the generator returned ${got}, not an array of candidates`, new TotError('INVALID_FORMAT', `The generator returned ${got}, not an array of candidates.`, { details: { nodeId: parent.id, value: result.value } }));
        return;
      }
      this.roleCalls.succeeded += 1;
      children.push(...this.addCandidates(parent, result.value as unknown[], k));
    });
    return children;
  }

  /** Adds up to `k` valid candidates (the tree checks each one); a duplicate of an earlier sibling is kept, marked. */
  private addCandidates(parent: ThoughtNode, candidates: readonly unknown[], k: number): ThoughtNode[] {
    this.counters.expandedNodes += 1;
    const added: ThoughtNode[] = [];
    const firstByText = new Map<string, string>();
    for (const item of candidates) {
      if (added.length >= k) break;
      const candidate = item as Candidate;
      if (typeof candidate !== 'object' || candidate === null || typeof candidate.content !== 'string') {
        this.counters.invalidCandidates += 1;
        continue;
      }
      const identity = `${candidate.actionType ?? ''}\u0000${candidate.content}`;
      const original = firstByText.get(identity);
      const metadata = original === undefined ? candidate.metadata : { ...candidate.metadata, duplicateOf: original };
      const thought: NewThought = { content: candidate.content };
      if (candidate.actionType !== undefined) thought.actionType = candidate.actionType;
      if (metadata !== undefined) thought.metadata = metadata;
      let node: ThoughtNode;
      try {
        node = this.tree.addChild(parent.id, thought);
      } catch (error) {
        if (!TotError.hasCode(error, 'INVALID_ARGUMENT')) throw error;
        this.counters.invalidCandidates += 1;
        continue;
      }
      if (original === undefined) firstByText.set(identity, node.id);
      else this.counters.duplicateCandidates += 1;
      this.emit({ type: 'node.created', node: snapshot(node), runId: '', seq: 0, at: null } as unknown as RunEventInput<SearchEvent>);
      added.push(node);
    }
    if (added.length === 0) {
      // A parent with no valid candidates is a dead end: expanded, with no children.
      this.tree.setStatus(parent.id, 'expanded');
    }
    this.emit({ type: 'node.expanded', nodeId: parent.id, childIds: added.map((n) => n.id), runId: '', seq: 0, at: null } as unknown as RunEventInput<SearchEvent>);
    return added;
  }

  async evaluate(nodes: readonly ThoughtNode[]): Promise<ThoughtNode[]> {
    if (this.stopped) return [];
    const fresh = nodes.filter((n) => n.status === 'pending' && n.evaluation === null);
    const toEvaluate: ThoughtNode[] = [];
    const copies: { node: ThoughtNode; from: string; key?: string }[] = [];
    const keyOwner = new Map<string, string>();
    const { stateKey } = this.init;
    for (const node of fresh) {
      const duplicateOf = node.metadata.duplicateOf;
      if (typeof duplicateOf === 'string') {
        this.apply(node, { score: 0, confidence: 1, reasoning: `duplicate of ${duplicateOf}` });
        continue;
      }
      if (!stateKey) {
        toEvaluate.push(node);
        continue;
      }
      let key: string;
      try {
        key = stateKey(node, this.tree);
      } catch (error) {
        this.fail(node, 'stateKey', `stateKey failed: ${message(error)}`, error);
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
      if (source === null || this.stopped) {
        if (!this.stopped) this.fail(node, 'evaluator', `the evaluation of equal state ${from} failed`, new TotError('INVALID_FORMAT', `The evaluation of equal state ${from} failed.`, { details: { nodeId: node.id } }));
        continue;
      }
      this.counters.dedupedStates += 1;
      this.updateMetadata(node, { dedupedState: key });
      this.apply(node, source);
    }
    if (!this.stopped) await this.settle(fresh);
    return nodes.map((n) => this.tree.node(n.id));
  }

  private async callEvaluator(candidates: ThoughtNode[], keyOwner: Map<string, string>): Promise<void> {
    this.counters.evaluatorCalls += 1;
    const { evaluator } = this.init;
    let batch: EvaluationBatch;
    try {
      batch = await this.run.guard(() => evaluator.evaluate({ tree: this.tree, candidates, context: this.context }, this.roleOptions), 'evaluator');
    } catch (error) {
      if (this.stopping(error)) return;
      this.roleCalls.failed += 1;
      for (const node of candidates) this.fail(node, 'evaluator', `evaluation failed: ${message(error)}`, error);
      return;
    }
    this.roleCalls.succeeded += 1;
    const answer = (batch as { evaluations?: unknown } | null)?.evaluations;
    const list: unknown[] = Array.isArray(answer) ? answer : [];
    // The first evaluation of each node counts. Evaluators mostly answer in candidate order: while
    // they do, each candidate's evaluation is at its own index (no earlier one can name it), and
    // only an answer out of order needs the index by node id.
    let byId: Map<string, unknown> | undefined;
    let aligned = true;
    const keys = keyOwner.size === 0 ? undefined : new Map([...keyOwner].map(([key, id]) => [id, key]));
    for (let i = 0; i < candidates.length; i++) {
      const node = candidates[i]!;
      let raw: unknown;
      if (aligned && (list[i] as { nodeId?: unknown } | null | undefined)?.nodeId === node.id) raw = list[i];
      else {
        aligned = false;
        byId ??= indexById(list);
        raw = byId.get(node.id);
      }
      if (raw === undefined) {
        this.fail(node, 'evaluator', 'evaluation missing: the evaluator returned no evaluation for this node', new TotError('INVALID_FORMAT', `The evaluator returned no evaluation for ${node.id}.`, { details: { nodeId: node.id, value: batch } }));
        continue;
      }
      // The tree checks the evaluation against its schema: one source of truth. Only the
      // evaluation's own fields go in (not the batch's nodeId).
      const fields = raw as Record<string, unknown>;
      const evaluation = { score: fields.score, confidence: fields.confidence, reasoning: fields.reasoning } as Evaluation;
      if (fields.dimensionScores !== undefined) evaluation.dimensionScores = fields.dimensionScores as Record<string, number>;
      let evaluated: ThoughtNode;
      try {
        evaluated = this.tree.evaluate(node.id, evaluation);
      } catch (error) {
        if (!TotError.hasCode(error, 'INVALID_ARGUMENT')) throw error;
        const issues = (error.details?.issues ?? []) as { path: PropertyKey[]; message: string }[];
        const reason = `invalid evaluation: ${issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ')}`;
        this.fail(node, 'evaluator', reason, new TotError('INVALID_FORMAT', `The evaluation of ${node.id} is invalid: ${issues[0]?.message ?? error.message}`, { details: { nodeId: node.id, value: raw, issues } }));
        continue;
      }
      const stored = evaluated.evaluation as Evaluation;
      const key = keys?.get(node.id);
      if (key !== undefined) this.evaluations.set(key, stored);
      // The tree never changes an evaluation it holds (it replaces it): the event can share it.
      this.emit({ type: 'node.evaluated', nodeId: node.id, evaluation: stored, runId: '', seq: 0, at: null } as unknown as RunEventInput<SearchEvent>);
    }
  }

  /** Every change to the tree is an event, so that a recorded run folds back into the same tree. */
  private updateMetadata(node: ThoughtNode, patch: Record<string, unknown>): void {
    this.tree.updateMetadata(node.id, patch);
    this.emit({ type: 'node.metadata', nodeId: node.id, patch });
  }

  private apply(node: ThoughtNode, evaluation: Evaluation): void {
    this.tree.evaluate(node.id, evaluation);
    this.emit({ type: 'node.evaluated', nodeId: node.id, evaluation: { ...evaluation }, runId: '', seq: 0, at: null } as unknown as RunEventInput<SearchEvent>);
  }

  /** Marks solutions terminal and prunes what scores under the threshold, in node order. */
  private async settle(nodes: readonly ThoughtNode[]): Promise<void> {
    const scored = nodes.filter((n) => n.status === 'pending' && n.evaluation !== null);
    const { isSolution } = this.init;
    const verdicts = isSolution
      ? await Promise.all(
          scored.map((n) =>
            this.run.guard(() => isSolution(n, this.tree), 'isSolution').then(
              (v) => ({ ok: true as const, solution: v === true }),
              (error: unknown) => ({ ok: false as const, error }),
            ),
          ),
        )
      : undefined;
    scored.forEach((node, i) => {
      const verdict = verdicts?.[i];
      if (verdict && !verdict.ok) {
        if (!this.stopping(verdict.error)) this.fail(node, 'isSolution', `isSolution failed: ${message(verdict.error)}`, verdict.error);
        return;
      }
      if (verdict?.solution) {
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
    const event: RunEventInput<Extract<SearchEvent, { type: 'node.pruned' }>> = { type: 'node.pruned', nodeId: node.id, prunedIds: ids };
    if (reason !== undefined) event.reason = reason;
    this.emit(event);
  }

  markTerminal(node: ThoughtNode, options: { solution?: boolean } = {}): void {
    const solution = options.solution === true;
    if (solution) this.updateMetadata(node, { solution: true });
    this.tree.markTerminal(node.id);
    if (solution) this.found.push(this.tree.node(node.id));
    this.emit({ type: 'node.terminal', nodeId: node.id, solution, runId: '', seq: 0, at: null } as unknown as RunEventInput<SearchEvent>);
  }

  backtrack(): void {
    this.counters.totalBacktracks += 1;
  }

  setBestPath(nodes: readonly ThoughtNode[]): void {
    this.chosenPath = nodes.map((n) => this.tree.node(n.id));
  }
}
