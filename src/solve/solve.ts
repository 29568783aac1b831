import { z } from 'zod';
import { Budget } from '../budget/budget.js';
import { TotError } from '../errors/index.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { createDecomposer } from '../roles/create-decomposer.js';
import { createEvaluator } from '../roles/create-evaluator.js';
import { createGenerator } from '../roles/create-generator.js';
import { createSynthesizer, runVerifier, type SolutionVerifier } from '../roles/create-synthesizer.js';
import { taskPreset } from '../roles/task-presets.js';
import type { Decomposer, Decomposition, FinalSolution, Synthesizer, SynthesizeInput, ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import { Explorer } from '../search/explorer.js';
import { bfs } from '../search/strategies/bfs.js';
import { dfs } from '../search/strategies/dfs.js';
import type { ExplorationResult, ExplorerOptions, SearchStrategy } from '../search/types.js';
import type { ThoughtNode } from '../tree/types.js';

/**
 * Options of {@link solve}. Give a `model` to get LLM-backed defaults for every role you do not
 * pass; a generator and an evaluator are required otherwise. Without a decomposer the task
 * preset's defaults stand in; without a synthesizer the best path's last step is the answer.
 *
 * @example
 * ```ts
 * import type { SolveOptions } from '@tot/core';
 *
 * const options: SolveOptions = { problem: 'Use 4 9 10 13 to make 24.', taskType: 'math_reasoning', model, verify: checkGame24 };
 * ```
 */
export interface SolveOptions extends Partial<Omit<ExplorerOptions, 'generator' | 'evaluator' | 'taskType' | 'strategy' | 'maxDepth'>> {
  problem: string;
  /** Default `'general'`; a seed-000 task type picks the preset's strategy and evaluation. */
  taskType?: string;
  model?: LanguageModel;
  decomposer?: Decomposer;
  generator?: ThoughtGenerator;
  evaluator?: ThoughtEvaluator;
  synthesizer?: Synthesizer;
  /** Host verifier of the final answer (used by the default synthesizers). */
  verify?: SolutionVerifier;
  /** Default: the preset's (BFS, beam 5, or DFS). */
  strategy?: SearchStrategy;
  /** Default: the decomposition's depth estimate, else the preset's, else 3. */
  maxDepth?: number;
  taskId?: string;
  signal?: AbortSignal;
}

/**
 * What {@link solve} returns: seed 000's final_solution plus the search behind it.
 *
 * @example
 * ```ts
 * import type { SolveResult } from '@tot/core';
 *
 * const print = (r: SolveResult) => console.log(r.solution.answer, r.solution.verification.isValid, r.stats.llmCalls);
 * ```
 */
export interface SolveResult extends ExplorationResult {
  solution: FinalSolution;
  decomposition: Decomposition;
}

const roleOf = (method: string) => z.custom((v) => typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)[method] === 'function', `expected an object with a ${method}() method`);

const optionsSchema = z
  .object({
    problem: z.string().min(1),
    taskType: z.string().min(1).default('general'),
    model: languageModelSchema.optional(),
    decomposer: roleOf('decompose').optional(),
    generator: roleOf('generate').optional(),
    evaluator: roleOf('evaluate').optional(),
    synthesizer: roleOf('synthesize').optional(),
    verify: fnSchema<SolutionVerifier>().optional(),
    maxDepth: z.number().int().min(1).optional(),
    budget: z.instanceof(Budget, { message: 'expected a Budget' }).optional(),
    taskId: z.string().min(1).optional(),
    signal: signalSchema,
  })
  .loose()
  .refine((o) => o.model !== undefined || (o.generator !== undefined && o.evaluator !== undefined), {
    message: 'give a model, or both a generator and an evaluator',
    path: ['model'],
  });

/** The answer built without a model: the best path's last step, verified by the host if it can. */
async function synthesizeFromPath(input: SynthesizeInput, verify: SolutionVerifier | undefined, note?: string): Promise<FinalSolution> {
  const steps = input.bestPath.slice(1);
  const last: ThoughtNode | undefined = steps.at(-1);
  const answer = last?.content ?? '';
  const verification = verify
    ? await runVerifier(verify, answer, input)
    : { isValid: last?.metadata.solution === true, ...(last?.metadata.solution === true ? {} : { validationErrors: ['not verified'] }) };
  if (note) verification.validationErrors = [...(verification.validationErrors ?? []), note];
  return { answer, reasoningTrace: steps.map((n) => n.content), confidence: last?.evaluation?.confidence ?? 0, verification };
}

/**
 * Seed 000's whole flow: decompose → initialise the search from the decomposition → explore →
 * synthesise. Stops of the search (depth, budget, exhaustion) still end with a solution built from
 * the best partial path; only an abort rejects (`ABORTED`).
 *
 * @example
 * ```ts
 * import { solve } from '@tot/core';
 *
 * const { solution, bestPath, stats } = await solve({
 *   problem: 'Use 4 9 10 13 and + - * / to make 24.',
 *   taskType: 'math_reasoning',
 *   model,
 *   verify: (answer) => checkGame24('4 9 10 13', answer),
 * });
 * console.log(solution.answer, solution.verification.isValid, stats.llmCalls);
 * ```
 */
export async function solve(options: SolveOptions): Promise<SolveResult> {
  const o = parseOptions(optionsSchema, options, 'solve');
  const preset = taskPreset(o.taskType);
  const model = options.model;
  const callOptions = { ...(o.signal ? { signal: o.signal } : {}), ...(o.budget ? { budget: o.budget } : {}) };

  const decomposer = options.decomposer ?? (model ? createDecomposer({ model }) : undefined);
  const decomposition: Decomposition = decomposer
    ? await decomposer.decompose({ problem: o.problem, taskType: o.taskType }, callOptions)
    : {
        thoughtGranularity: preset?.granularity ?? 'step',
        intermediateSteps: [],
        depthEstimate: options.maxDepth ?? preset?.depth?.[1] ?? 3,
        constraints: options.constraints ?? [],
        successCriteria: options.goal ?? 'solve the problem',
      };

  const generator = options.generator ?? createGenerator({ model: model!, strategy: o.taskType === 'creative_writing' ? 'independent_sampling' : 'sequential_proposal' });
  const evaluator = options.evaluator ?? createEvaluator({ model: model!, strategy: preset?.evaluation ?? 'independent_scoring' });
  const { problem: _p, taskType: _t, model: _m, decomposer: _d, generator: _g, evaluator: _e, synthesizer: _s, verify, taskId, signal, strategy, maxDepth, ...explorerOptions } = options;
  const explorer = new Explorer({
    ...explorerOptions,
    generator,
    evaluator,
    taskType: o.taskType,
    strategy: strategy ?? (preset?.strategy === 'dfs' ? dfs() : bfs({ beamWidth: 5 })),
    maxDepth: maxDepth ?? Math.min(20, Math.max(1, decomposition.depthEstimate)),
    constraints: [...(options.constraints ?? []), ...decomposition.constraints],
    granularity: decomposition.thoughtGranularity,
    goal: options.goal ?? decomposition.successCriteria,
  });
  const result = await explorer.run(o.problem, { ...(signal ? { signal } : {}), ...(taskId ? { taskId } : {}), data: { decomposition } });

  const input: SynthesizeInput = { bestPath: result.bestPath, problem: o.problem, taskType: o.taskType, tree: result.tree };
  const synthesizer = options.synthesizer ?? (model ? createSynthesizer({ model, ...(verify ? { verify } : {}) }) : undefined);
  let solution: FinalSolution;
  if (!synthesizer || result.stopReason === 'budget_exceeded') solution = await synthesizeFromPath(input, verify);
  else {
    try {
      solution = await synthesizer.synthesize(input, callOptions);
    } catch (error) {
      if (TotError.hasCode(error, 'ABORTED')) throw error;
      solution = await synthesizeFromPath(input, verify, `synthesizer failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { ...result, solution, decomposition };
}
