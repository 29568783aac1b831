import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { StandardSchemaV1 } from '../internal/standard-schema.js';
import { parseOptions } from '../internal/validate.js';
import { callModel, SAMPLE_INDEX_TAG } from '../model/call-model.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { generateChecked } from '../structured/generate-structured.js';
import { parseStructuredAsync } from '../structured/parse-structured.js';
import type { ThoughtNode } from '../tree/types.js';
import { describePrompt, promptTemplateSchema, renderPrompt, type PromptTemplate } from './prompt-template.js';
import { contextVariables, pathVariable } from './prompt-variables.js';
import { roleModel } from './role-model.js';
import type { EvaluateThoughtsInput, EvaluationBatch, NodeEvaluation, RoleCallOptions, ThoughtEvaluator } from './types.js';

/**
 * Options of {@link createEvaluator}.
 *
 * @example
 * ```ts
 * import type { EvaluatorOptions } from '@tot/core';
 *
 * const options: EvaluatorOptions = { model, strategy: 'comparative_voting', samples: 5 };
 * ```
 */
export interface EvaluatorOptions {
  model: LanguageModel;
  /**
   * `independent_scoring` (default): each candidate is scored 0–10 on its own, `samples` times,
   * and the samples are averaged. `comparative_voting`: one prompt shows every candidate and asks
   * for the best; `samples` votes are tallied into scores (10 × share of the votes).
   */
  strategy?: 'independent_scoring' | 'comparative_voting';
  /** Samples per candidate (scoring) or votes (voting). Default 1. */
  samples?: number;
  /** What scores consider. Default `['correctness', 'progress', 'feasibility']`. */
  criteria?: string[];
  /**
   * Overrides the prompt. Variables: `problem`, `goal`, `constraints`, `path`, `criteria`,
   * `maxDepth`, `granularity`, `taskType`, and `candidate` (scoring) or `candidates` (voting).
   */
  prompt?: PromptTemplate;
  system?: string;
  /** Default 0 for one sample, 0.7 for several. */
  temperature?: number;
  /** Default 2. */
  maxRepairs?: number;
}

/**
 * The default evaluator prompts, by strategy.
 *
 * @example
 * ```ts
 * import { DEFAULT_EVALUATOR_PROMPTS } from '@tot/core';
 *
 * console.log(DEFAULT_EVALUATOR_PROMPTS.independent_scoring);
 * ```
 */
export const DEFAULT_EVALUATOR_PROMPTS = {
  independent_scoring: [
    'You are judging one candidate step toward solving a problem.',
    'Problem: {{problem}}',
    'Goal: {{goal}}',
    'Constraints:\n{{constraints}}',
    'Steps so far, ending with the candidate:\n{{path}}',
    'Candidate step: {{candidate}}',
    'Score from 0 to 10 how likely this step leads to a correct solution, considering {{criteria}}. Give your confidence from 0 to 1.',
    'Reply with JSON only: {"score": <0-10>, "confidence": <0-1>, "reasoning": "<one sentence>", "dimensionScores": {"<criterion>": <0-10>}}',
  ].join('\n\n'),
  comparative_voting: [
    'You are choosing the most promising of several candidate steps toward solving a problem.',
    'Problem: {{problem}}',
    'Goal: {{goal}}',
    'Constraints:\n{{constraints}}',
    'Candidates:\n{{candidates}}',
    'Consider {{criteria}}. Choose the single most promising candidate.',
    'Reply with JSON only: {"best": <candidate number>, "reasoning": "<one sentence>"}',
  ].join('\n\n'),
} as const;

const scoreSchema = z.object({
  score: z.number().min(0).max(10),
  confidence: z.number().min(0).max(1).default(0.5),
  reasoning: z.string().default(''),
  dimensionScores: z.record(z.string(), z.number().min(0).max(10)).optional(),
});
const voteSchema = z.object({ best: z.number().int(), reasoning: z.string().default('') });

/**
 * The replies the default evaluator prompts ask for, by strategy: a score (`independent_scoring`)
 * or a vote for the best candidate, numbered from 1 (`comparative_voting`). A custom prompt must
 * still ask for these.
 *
 * @example
 * ```ts
 * import { evaluatorReplySchemas } from '@tot/core';
 *
 * evaluatorReplySchemas.independent_scoring.parse({ score: 8 }); // { score: 8, confidence: 0.5, reasoning: '' }
 * ```
 */
export const evaluatorReplySchemas = { independent_scoring: scoreSchema, comparative_voting: voteSchema } as const;

const optionsSchema = z.strictObject({
  model: languageModelSchema,
  strategy: z.enum(['independent_scoring', 'comparative_voting']).default('independent_scoring'),
  samples: z.number().int().min(1).max(100).default(1),
  criteria: z.array(z.string().min(1)).min(1).default(['correctness', 'progress', 'feasibility']),
  prompt: promptTemplateSchema.optional(),
  system: z.string().optional(),
  temperature: z.number().min(0).optional(),
  maxRepairs: z.number().int().min(0).max(20).default(2),
});

type Parsed = z.output<typeof optionsSchema>;

/**
 * Builds ranking (best first; ties keep candidate order) and pruning suggestions (below the
 * context's pruning threshold) for a list of evaluations.
 *
 * @example
 * ```ts
 * import { rankEvaluations } from '@tot/core';
 *
 * rankEvaluations([{ nodeId: 'a', score: 2, confidence: 1, reasoning: '' }, { nodeId: 'b', score: 9, confidence: 1, reasoning: '' }], 3);
 * // { evaluations: [...], ranking: ['b', 'a'], pruningSuggestions: ['a'] }
 * ```
 */
export function rankEvaluations(evaluations: NodeEvaluation[], pruningThreshold?: number): EvaluationBatch {
  // Array.prototype.sort is stable: ties keep candidate order without carrying indices.
  const ranking = evaluations
    .slice()
    .sort((a, b) => b.score - a.score)
    .map((e) => e.nodeId);
  const pruningSuggestions: string[] = [];
  if (pruningThreshold !== undefined) for (const e of evaluations) if (e.score < pruningThreshold) pruningSuggestions.push(e.nodeId);
  return { evaluations, ranking, pruningSuggestions };
}

/**
 * An LLM-backed {@link ThoughtEvaluator} (the Tree-of-Thoughts agent protocol's evaluation strategies). Replies are parsed
 * with structured output (repairs included); model calls go through the run (its
 * budget, concurrency and log).
 *
 * @example
 * ```ts
 * import { createEvaluator } from '@tot/core';
 *
 * const evaluator = createEvaluator({ model, strategy: 'independent_scoring', samples: 3 });
 * ```
 */
export function createEvaluator(options: EvaluatorOptions): ThoughtEvaluator {
  const o = parseOptions(optionsSchema, options, 'createEvaluator');
  const template = o.prompt ?? DEFAULT_EVALUATOR_PROMPTS[o.strategy];
  const temperature = o.temperature ?? (o.samples > 1 ? 0.7 : 0);
  return {
    config: { kind: 'llm-evaluator', modelId: o.model.modelId, strategy: o.strategy, samples: o.samples, criteria: o.criteria, prompt: describePrompt(template), system: o.system, temperature, maxRepairs: o.maxRepairs },
    async evaluate(input, callOptions = {}) {
      const evaluations = o.strategy === 'independent_scoring' ? await scoreEach(o, template, temperature, input, callOptions) : await vote(o, template, temperature, input, callOptions);
      return rankEvaluations(evaluations, input.context.pruningThreshold);
    },
  };
}

/** `samples` structured replies for one prompt: one call with n when the model can, else parallel calls. */
async function sample<T>(
  o: Parsed,
  schema: StandardSchemaV1<unknown, T>,
  prompt: string,
  temperature: number,
  tags: Record<string, string>,
  callOptions: RoleCallOptions,
): Promise<T[]> {
  const model = roleModel(o.model, callOptions);
  const signal = callOptions.signal ? { signal: callOptions.signal } : {};
  if (o.samples > 1 && o.model.capabilities?.multipleOutputs === true) {
    const messages = [...(o.system ? [{ role: 'system' as const, content: o.system }] : []), { role: 'user' as const, content: prompt }];
    const result = await callModel(model, { messages, n: o.samples, temperature, tags }, signal);
    const values: T[] = [];
    for (const text of result.outputs) {
      const parsed = await parseStructuredAsync(text, { schema, signal: callOptions.signal });
      if (parsed.success) values.push(parsed.value);
    }
    if (values.length === 0) throw new TotError('INVALID_FORMAT', `None of the ${o.samples} samples could be parsed.`, { details: { rawOutputs: result.outputs } });
    return values;
  }
  return Promise.all(
    Array.from({ length: o.samples }, (_, i) =>
      generateChecked(model, {
        prompt,
        schema,
        format: 'json',
        useResponseFormat: true,
        ...(o.system === undefined ? {} : { system: o.system }),
        temperature,
        maxRepairs: o.maxRepairs,
        tags: o.samples > 1 ? { ...tags, [SAMPLE_INDEX_TAG]: String(i) } : tags,
        ...signal,
      }).then((r) => r.value),
    ),
  );
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

async function scoreEach(o: Parsed, template: PromptTemplate, temperature: number, input: EvaluateThoughtsInput, callOptions: RoleCallOptions): Promise<NodeEvaluation[]> {
  const base = { ...contextVariables(input.context), criteria: o.criteria.join(', ') };
  return Promise.all(
    input.candidates.map(async (candidate): Promise<NodeEvaluation> => {
      const tags = { role: 'evaluator', strategy: 'independent_scoring', node: candidate.id, depth: String(candidate.depth), thought: candidate.content };
      const prompt = renderPrompt(template, { ...base, path: pathVariable(input.tree, candidate), candidate: candidate.content });
      const samples = await sample(o, scoreSchema, prompt, temperature, tags, callOptions);
      const evaluation: NodeEvaluation = {
        nodeId: candidate.id,
        score: mean(samples.map((s) => s.score)),
        confidence: mean(samples.map((s) => s.confidence)),
        reasoning: samples[0]!.reasoning,
      };
      const keys = [...new Set(samples.flatMap((s) => Object.keys(s.dimensionScores ?? {})))];
      if (keys.length > 0) {
        evaluation.dimensionScores = Object.fromEntries(
          keys.map((k) => [k, mean(samples.flatMap((s) => (s.dimensionScores?.[k] === undefined ? [] : [s.dimensionScores[k]!])))]),
        );
      }
      return evaluation;
    }),
  );
}

function listCandidates(candidates: ThoughtNode[]): string {
  return candidates.map((c, i) => `${i + 1}. ${c.content}`).join('\n');
}

async function vote(o: Parsed, template: PromptTemplate, temperature: number, input: EvaluateThoughtsInput, callOptions: RoleCallOptions): Promise<NodeEvaluation[]> {
  const { candidates } = input;
  if (candidates.length === 0) return [];
  const prompt = renderPrompt(template, {
    ...contextVariables(input.context),
    criteria: o.criteria.join(', '),
    candidates: listCandidates(candidates),
    path: candidates[0] ? pathVariable(input.tree, input.tree.parent(candidates[0].id) ?? candidates[0]) : '(none yet)',
  });
  const votes = await sample(o, voteSchema, prompt, temperature, { role: 'evaluator', strategy: 'comparative_voting', nodes: candidates.map((c) => c.id).join(',') }, callOptions);
  const tally = new Array<number>(candidates.length).fill(0);
  const reasons = new Array<string | undefined>(candidates.length);
  let valid = 0;
  for (const v of votes) {
    // A vote for a number that is not on the list is an abstention, not an error.
    if (v.best < 1 || v.best > candidates.length) continue;
    valid += 1;
    tally[v.best - 1]! += 1;
    reasons[v.best - 1] ??= v.reasoning;
  }
  if (valid === 0) throw new TotError('INVALID_FORMAT', `No valid vote among ${votes.length}: every vote named a candidate outside 1–${candidates.length}.`, { details: { value: votes } });
  return candidates.map((c, i) => ({
    nodeId: c.id,
    score: (10 * tally[i]!) / votes.length,
    confidence: valid / votes.length,
    reasoning: `${tally[i]} of ${votes.length} votes${reasons[i] ? `: ${reasons[i]}` : ''}`,
  }));
}
