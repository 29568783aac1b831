import { z } from 'zod';
import { parseOptions } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { generateChecked } from '../structured/generate-structured.js';
import { describePrompt, promptTemplateSchema, renderPrompt, type PromptTemplate } from './prompt-template.js';
import { roleModel } from './role-model.js';
import { taskPreset } from './task-presets.js';
import type { Decomposer, Decomposition } from './types.js';

/**
 * Options of {@link createDecomposer}.
 *
 * @example
 * ```ts
 * import type { DecomposerOptions } from '@tot/core';
 *
 * const options: DecomposerOptions = { model, system: 'You plan before you solve.' };
 * ```
 */
export interface DecomposerOptions {
  model: LanguageModel;
  /** Overrides the prompt. Variables: `problem`, `taskType`, `granularity`. */
  prompt?: PromptTemplate;
  system?: string;
  /** Default 2. */
  maxRepairs?: number;
}

/**
 * The default decomposer prompt.
 *
 * @example
 * ```ts
 * import { DEFAULT_DECOMPOSER_PROMPT } from '@tot/core';
 *
 * console.log(DEFAULT_DECOMPOSER_PROMPT);
 * ```
 */
export const DEFAULT_DECOMPOSER_PROMPT = [
  'Analyse how to solve this problem step by step before anyone solves it.',
  'Problem: {{problem}}',
  'Task type: {{taskType}} (a thought is usually one {{granularity}})',
  'Reply with JSON only:',
  '{"thought_granularity": "<what one step is>", "intermediate_steps": ["<step description>", "..."], "depth_estimate": <number of steps>, "constraints": ["<constraint>", "..."], "success_criteria": "<how to tell the problem is solved>"}',
].join('\n\n');

const decompositionSchema = z.object({
  thought_granularity: z.string().min(1),
  intermediate_steps: z.array(z.string()),
  depth_estimate: z.number().int().min(1).max(100),
  constraints: z.array(z.string()).default([]),
  success_criteria: z.string(),
});

/**
 * The reply the default decomposer prompt asks for (snake_case, as models write it). A custom
 * prompt must still ask for it.
 *
 * @example
 * ```ts
 * import { decomposerReplySchema } from '@tot/core';
 *
 * decomposerReplySchema.parse({ thought_granularity: 'equation', intermediate_steps: ['a', 'b'], depth_estimate: 2, success_criteria: 'reaches 24' });
 * ```
 */
export const decomposerReplySchema = decompositionSchema;

const optionsSchema = z.strictObject({
  model: languageModelSchema,
  prompt: promptTemplateSchema.optional(),
  system: z.string().optional(),
  maxRepairs: z.number().int().min(0).max(20).default(2),
});

/**
 * An LLM-backed {@link Decomposer}: returns the Tree-of-Thoughts agent protocol's decomposition_result (granularity,
 * intermediate steps, depth estimate, constraints, success criteria) in camelCase.
 *
 * @example
 * ```ts
 * import { createDecomposer } from '@tot/core';
 *
 * const decomposition = await createDecomposer({ model }).decompose({ problem: '4 9 10 13', taskType: 'math_reasoning' });
 * decomposition.depthEstimate; // e.g. 3
 * ```
 */
export function createDecomposer(options: DecomposerOptions): Decomposer {
  const o = parseOptions(optionsSchema, options, 'createDecomposer');
  return {
    config: { kind: 'llm-decomposer', modelId: o.model.modelId, prompt: describePrompt(o.prompt ?? DEFAULT_DECOMPOSER_PROMPT), system: o.system, maxRepairs: o.maxRepairs },
    async decompose(input, callOptions = {}): Promise<Decomposition> {
      const model = roleModel(o.model, callOptions);
      const prompt = renderPrompt(o.prompt ?? DEFAULT_DECOMPOSER_PROMPT, {
        problem: input.problem,
        taskType: input.taskType,
        granularity: taskPreset(input.taskType)?.granularity ?? 'step',
      });
      const { value } = await generateChecked(model, {
        prompt,
        schema: decompositionSchema,
        format: 'json',
        useResponseFormat: true,
        ...(o.system === undefined ? {} : { system: o.system }),
        maxRepairs: o.maxRepairs,
        temperature: 0,
        tags: { role: 'decomposer' },
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        });
      return {
        thoughtGranularity: value.thought_granularity,
        intermediateSteps: value.intermediate_steps,
        depthEstimate: value.depth_estimate,
        constraints: value.constraints,
        successCriteria: value.success_criteria,
      };
    },
  };
}
