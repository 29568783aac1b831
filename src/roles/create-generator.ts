import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { parseOptions } from '../internal/validate.js';
import { callModel, SAMPLE_INDEX_TAG } from '../model/call-model.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { generateChecked } from '../structured/generate-structured.js';
import { parseStructuredAsync, type ParseStructuredResult } from '../structured/parse-structured.js';
import { describePrompt, promptTemplateSchema, renderPrompt, type PromptTemplate } from './prompt-template.js';
import { contextVariables, pathVariable } from './prompt-variables.js';
import { roleModel } from './role-model.js';
import type { Candidate, ThoughtGenerator } from './types.js';

/**
 * Options of {@link createGenerator}.
 *
 * @example
 * ```ts
 * import type { GeneratorOptions } from '@tot/core';
 *
 * const options: GeneratorOptions = { model, strategy: 'independent_sampling', temperature: 0.9 };
 * ```
 */
export interface GeneratorOptions {
  model: LanguageModel;
  /**
   * `sequential_proposal` (default): one call returns a list of `k` candidates — cheap, suits
   * constrained tasks. `independent_sampling`: `k` independent samples of one candidate each (one
   * call with `n = k` when the model can, else `k` calls) — diverse, suits open tasks.
   */
  strategy?: 'independent_sampling' | 'sequential_proposal';
  /**
   * Overrides the prompt. Variables: `problem`, `goal`, `constraints`, `path`, `k`, `depth`,
   * `maxDepth`, `granularity`, `taskType`. The reply must still be the JSON the strategy expects
   * (see {@link DEFAULT_GENERATOR_PROMPTS}).
   */
  prompt?: PromptTemplate;
  system?: string;
  /** Default 0.7. */
  temperature?: number;
  /** Default 2. */
  maxRepairs?: number;
}

const candidateSchema = z.object({
  content: z.string().trim().min(1),
  actionType: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
const proposalSchema = z.object({ candidates: z.array(candidateSchema) });

/**
 * The replies the default generator prompts ask for, by strategy: `sequential_proposal` a list of
 * candidates, `independent_sampling` one candidate per sample. A custom prompt must still ask for
 * these.
 *
 * @example
 * ```ts
 * import { generatorReplySchemas } from '@tot/core';
 *
 * generatorReplySchemas.sequential_proposal.parse({ candidates: [{ content: '13 - 9 = 4 (left: 4 4 10)' }] });
 * ```
 */
export const generatorReplySchemas = { sequential_proposal: proposalSchema, independent_sampling: candidateSchema } as const;

/**
 * The default generator prompts, by strategy.
 *
 * @example
 * ```ts
 * import { DEFAULT_GENERATOR_PROMPTS } from '@tot/core';
 *
 * console.log(DEFAULT_GENERATOR_PROMPTS.sequential_proposal);
 * ```
 */
export const DEFAULT_GENERATOR_PROMPTS = {
  sequential_proposal: [
    'You are solving a problem one step at a time.',
    'Problem: {{problem}}',
    'Goal: {{goal}}',
    'Constraints:\n{{constraints}}',
    'Steps so far:\n{{path}}',
    'Propose {{k}} different possible next steps (one {{granularity}} each), each following from the steps so far.',
    'Reply with JSON only: {"candidates": [{"content": "<the step>", "actionType": "<a short label>"}]}',
  ].join('\n\n'),
  independent_sampling: [
    'You are solving a problem one step at a time.',
    'Problem: {{problem}}',
    'Goal: {{goal}}',
    'Constraints:\n{{constraints}}',
    'Steps so far:\n{{path}}',
    'Propose one possible next step (one {{granularity}}) that follows from the steps so far.',
    'Reply with JSON only: {"content": "<the step>", "actionType": "<a short label>"}',
  ].join('\n\n'),
} as const;

const optionsSchema = z.strictObject({
  model: languageModelSchema,
  strategy: z.enum(['independent_sampling', 'sequential_proposal']).default('sequential_proposal'),
  prompt: promptTemplateSchema.optional(),
  system: z.string().optional(),
  temperature: z.number().min(0).default(0.7),
  maxRepairs: z.number().int().min(0).max(20).default(2),
});

/**
 * An LLM-backed {@link ThoughtGenerator} (the Tree-of-Thoughts agent protocol's generation strategies). Replies are parsed
 * with {@link generateStructured} (repairs included); model calls go through the run
 * (its budget, concurrency and log).
 *
 * @example
 * ```ts
 * import { createGenerator } from '@tot/core';
 *
 * const generator = createGenerator({ model, strategy: 'sequential_proposal' });
 * ```
 */
export function createGenerator(options: GeneratorOptions): ThoughtGenerator {
  const o = parseOptions(optionsSchema, options, 'createGenerator');
  const template = o.prompt ?? DEFAULT_GENERATOR_PROMPTS[o.strategy];
  return {
    config: { kind: 'llm-generator', modelId: o.model.modelId, strategy: o.strategy, prompt: describePrompt(template), system: o.system, temperature: o.temperature, maxRepairs: o.maxRepairs },
    async generate(input, callOptions = {}) {
      const model = roleModel(o.model, callOptions);
      // What the call is about, for traces and for test models that answer by role and node.
      const tags = { role: 'generator', strategy: o.strategy, node: input.parent.id, depth: String(input.parent.depth), thought: input.parent.content };
      const prompt = renderPrompt(template, {
        ...contextVariables(input.context),
        path: pathVariable(input.tree, input.parent),
        k: String(input.k),
        depth: String(input.parent.depth + 1),
      });
      const common = {
        prompt,
        ...(o.system === undefined ? {} : { system: o.system }),
        temperature: o.temperature,
        maxRepairs: o.maxRepairs,
        format: 'json' as const,
        useResponseFormat: true,
        tags,
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      };
      if (o.strategy === 'sequential_proposal') {
        const { value } = await generateChecked(model, { ...common, schema: proposalSchema });
        return value.candidates.slice(0, input.k) as Candidate[];
      }
      if (o.model.capabilities?.multipleOutputs === true) {
        const result = await callModel(model, { messages: [...(o.system ? [{ role: 'system' as const, content: o.system }] : []), { role: 'user', content: prompt }], n: input.k, temperature: o.temperature, tags }, { signal: callOptions.signal });
        const parsed: ParseStructuredResult<unknown>[] = [];
        for (const text of result.outputs) parsed.push(await parseStructuredAsync(text, { schema: candidateSchema, signal: callOptions.signal }));
        const candidates = parsed.flatMap((p) => (p.success ? [p.value as Candidate] : []));
        if (candidates.length === 0 && input.k > 0) {
          throw new TotError('INVALID_FORMAT', `None of the ${result.outputs.length} sampled candidates was valid JSON.`, { details: { rawOutputs: result.outputs } });
        }
        return candidates;
      }
      const samples = await Promise.all(
        // Distinct sample tags keep caches and cassettes from collapsing the k samples into one.
        Array.from({ length: input.k }, (_, i) =>
          generateChecked(model, { ...common, tags: { ...tags, [SAMPLE_INDEX_TAG]: String(i) }, schema: candidateSchema }),
        ),
      );
      return samples.map((s) => s.value as Candidate);
    },
  };
}
