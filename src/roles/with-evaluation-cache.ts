import { z } from 'zod';
import { compileFastCheck } from '../internal/fast-check.js';
import { throwIfAborted } from '../internal/abort.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { evaluationSchema } from '../tree/schemas.js';
import type { ThoughtTree } from '../tree/thought-tree.js';
import type { Evaluation, ThoughtNode } from '../tree/types.js';
import { rankEvaluations } from './create-evaluator.js';
import type { NodeEvaluation, ThoughtEvaluator } from './types.js';

/**
 * Where {@link withEvaluationCache} keeps evaluations by state key. A `Map<string, Evaluation>`
 * is one; pass the same store to the evaluators of several runs to share their evaluations.
 *
 * @example
 * ```ts
 * import type { Evaluation, EvaluationStore } from '@tot/core';
 *
 * const store: EvaluationStore = new Map<string, Evaluation>();
 * ```
 */
export interface EvaluationStore {
  /** The evaluation kept for a state's key, if there is one. */
  get(key: string): Evaluation | undefined;
  /** Keeps a state's evaluation (what it returns is ignored: a `Map`'s `set` fits). */
  set(key: string, evaluation: Evaluation): unknown;
}

/**
 * Options of {@link withEvaluationCache}.
 *
 * @example
 * ```ts
 * import type { EvaluationCacheOptions } from '@tot/core';
 *
 * const options: EvaluationCacheOptions = { key: (node) => node.content.trim(), store: new Map() };
 * ```
 */
export interface EvaluationCacheOptions {
  /** The state a candidate stands for: candidates with equal keys get one evaluation. */
  key: (node: ThoughtNode, tree: ThoughtTree) => string;
  /** Where evaluations are kept. Default: a new `Map`, so one per wrapped evaluator. */
  store?: EvaluationStore;
}

const optionsSchema = z.strictObject({
  key: fnSchema<EvaluationCacheOptions['key']>(),
  store: z
    .custom<EvaluationStore>((v) => typeof v === 'object' && v !== null && typeof (v as EvaluationStore).get === 'function' && typeof (v as EvaluationStore).set === 'function', 'expected an EvaluationStore ({ get, set })')
    .optional(),
});

const evaluatorSchema = z.custom<ThoughtEvaluator>((v) => typeof v === 'object' && v !== null && typeof (v as ThoughtEvaluator).evaluate === 'function', 'expected a ThoughtEvaluator ({ evaluate })');

const fastCheck = compileFastCheck(evaluationSchema);
const isValidEvaluation = (v: unknown): boolean => fastCheck?.(v) === true || evaluationSchema.safeParse(v).success;

/** The evaluation's own fields, copied: what the store keeps, without the batch's nodeId. */
function stored(e: NodeEvaluation): Evaluation {
  const copy: Evaluation = { score: e.score, confidence: e.confidence, reasoning: e.reasoning };
  if (e.dimensionScores !== undefined) copy.dimensionScores = { ...e.dimensionScores };
  return copy;
}

/** Per candidate, the first evaluation `list` gives it (in candidate order when the evaluator answers in order, as most do). */
function ownEvaluations(candidates: readonly ThoughtNode[], list: unknown): (NodeEvaluation | undefined)[] {
  const out = new Array<NodeEvaluation | undefined>(candidates.length);
  if (!Array.isArray(list)) return out;
  const nodeIdOf = (e: unknown) => (typeof e === 'object' && e !== null ? (e as { nodeId?: unknown }).nodeId : undefined);
  let aligned = list.length >= candidates.length;
  for (let i = 0; aligned && i < candidates.length; i++) aligned = nodeIdOf(list[i]) === candidates[i]!.id;
  if (aligned) {
    for (let i = 0; i < candidates.length; i++) out[i] = list[i] as NodeEvaluation;
    return out;
  }
  const at = new Map<string, number>();
  candidates.forEach((c, i) => at.set(c.id, i));
  for (const e of list) {
    const i = at.get(nodeIdOf(e) as string);
    if (i !== undefined && out[i] === undefined) out[i] = e as NodeEvaluation;
  }
  return out;
}

function forNode(nodeId: string, e: Evaluation): NodeEvaluation {
  const out: NodeEvaluation = { nodeId, score: e.score, confidence: e.confidence, reasoning: e.reasoning };
  if (e.dimensionScores !== undefined) out.dimensionScores = { ...e.dimensionScores };
  return out;
}

/**
 * An evaluator that evaluates each state once: a candidate whose `key` the store holds gets the
 * stored evaluation without a call to `evaluator`, candidates of one batch with equal keys are
 * sent once (the others get a copy), and the valid evaluations `evaluator` returns are stored.
 * This is the value cache of the Tree-of-Thoughts reference code (one evaluation per value
 * prompt, for a whole run of puzzles when the store is shared): with a model behind `evaluator`,
 * a state already valued costs no model call.
 *
 * Unlike the explorer's `stateKey` (equal states evaluated once per run, a resume repeating
 * exactly what the run did), a store shared between runs makes a run depend on the runs before
 * it: a resumed run asks the model again for the states its store no longer holds. A key that
 * throws fails the batch (the explorer records an evaluation failure for its candidates).
 *
 * @example
 * ```ts
 * import { bfs, Explorer, withEvaluationCache, type Evaluation } from '@tot/core';
 *
 * // Game of 24: the value of a state is that of its remaining numbers, whatever the path.
 * const store = new Map<string, Evaluation>();
 * const numbersLeft = (node: { content: string }) => /left: ([^)]*)\)/.exec(node.content)?.[1] ?? node.content;
 * for (const puzzle of puzzles) {
 *   const explorer = new Explorer({ generator, evaluator: withEvaluationCache(evaluator, { key: numbersLeft, store }), strategy: bfs({ beamWidth: 5 }), maxDepth: 4 });
 *   await explorer.run(puzzle);
 * }
 * ```
 */
export function withEvaluationCache(evaluator: ThoughtEvaluator, options: EvaluationCacheOptions): ThoughtEvaluator {
  parseOptions(evaluatorSchema, evaluator, 'withEvaluationCache', 'evaluator');
  const o = parseOptions(optionsSchema, options, 'withEvaluationCache');
  const store: EvaluationStore = o.store ?? new Map<string, Evaluation>();
  const { key } = o;
  return {
    config: { kind: 'evaluation-cache', evaluator: evaluator.config ?? 'custom' },
    async evaluate(input, callOptions = {}) {
      throwIfAborted(callOptions.signal, 'evaluation');
      const { candidates, tree } = input;
      const keys = new Array<string>(candidates.length);
      let misses: ThoughtNode[] | undefined;
      let missKeys: string[] | undefined;
      // The keys sent, as a set once there are enough of them for a scan to cost more.
      let sent: Set<string> | undefined;
      for (let i = 0; i < candidates.length; i++) {
        const k = key(candidates[i]!, tree);
        keys[i] = k;
        // A key met earlier in the batch is sent once: its later candidates copy the evaluation.
        if (store.get(k) !== undefined || (sent !== undefined ? sent.has(k) : missKeys?.includes(k) === true)) continue;
        (misses ??= []).push(candidates[i]!);
        (missKeys ??= []).push(k);
        if (sent !== undefined) sent.add(k);
        else if (missKeys.length > 16) sent = new Set(missKeys);
      }
      let fresh: (NodeEvaluation | undefined)[] | undefined;
      if (misses !== undefined) {
        const batch = await evaluator.evaluate(misses.length === candidates.length ? input : { tree, candidates: misses, context: input.context }, callOptions);
        fresh = ownEvaluations(misses, (batch as { evaluations?: unknown } | null)?.evaluations);
        // Only a valid evaluation is kept: an invalid one is the evaluator's failure on that node
        // (the explorer says so), never an answer served to other states.
        for (let i = 0; i < misses.length; i++) {
          const e = fresh[i];
          if (e === undefined) continue;
          const copy = stored(e);
          if (isValidEvaluation(copy)) store.set(missKeys![i]!, copy);
        }
      }
      const evaluations: NodeEvaluation[] = [];
      let m = 0;
      for (let i = 0; i < candidates.length; i++) {
        const node = candidates[i]!;
        if (fresh !== undefined && misses![m] === node) {
          const own = fresh[m++];
          if (own !== undefined) evaluations.push(own);
          continue;
        }
        const e = store.get(keys[i]!);
        if (e !== undefined) evaluations.push(forNode(node.id, e));
      }
      return rankEvaluations(evaluations, input.context.pruningThreshold);
    },
  };
}
