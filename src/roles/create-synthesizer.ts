import { z } from 'zod';
import { parseOptions } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { generateChecked } from '../structured/generate-structured.js';
import { describePrompt, promptTemplateSchema, renderPrompt, type PromptTemplate } from './prompt-template.js';
import { roleModel } from './role-model.js';
import type { FinalSolution, SynthesizeInput, Synthesizer } from './types.js';

/**
 * A host's check of an answer: `true`/`false`, or a verdict with reasons. It may be async and may
 * throw; a throw counts as "not valid" with the error as the reason.
 *
 * @example
 * ```ts
 * import type { SolutionVerifier } from '@tot/core';
 *
 * const verify: SolutionVerifier = (answer) => ({ isValid: answer.includes('24'), validationErrors: [] });
 * ```
 */
export type SolutionVerifier = (
  answer: string,
  input: SynthesizeInput,
) => boolean | { isValid: boolean; validationErrors?: string[] } | Promise<boolean | { isValid: boolean; validationErrors?: string[] }>;

/**
 * Options of {@link createSynthesizer}.
 *
 * @example
 * ```ts
 * import type { SynthesizerOptions } from '@tot/core';
 *
 * const options: SynthesizerOptions = { model, verify: (answer) => answer.endsWith('= 24') };
 * ```
 */
export interface SynthesizerOptions {
  model: LanguageModel;
  /** The host's verifier. Without one, `verification` is the model's own check. */
  verify?: SolutionVerifier;
  /** Overrides the prompt. Variables: `problem`, `taskType`, `path`. */
  prompt?: PromptTemplate;
  system?: string;
  /** Default 2. */
  maxRepairs?: number;
}

/**
 * The default synthesizer prompt.
 *
 * @example
 * ```ts
 * import { DEFAULT_SYNTHESIZER_PROMPT } from '@tot/core';
 *
 * console.log(DEFAULT_SYNTHESIZER_PROMPT);
 * ```
 */
export const DEFAULT_SYNTHESIZER_PROMPT = [
  'These reasoning steps were found as the best path toward solving a problem.',
  'Problem: {{problem}}',
  'Steps:\n{{path}}',
  'Write the final answer, the reasoning trace, and check the answer against the problem.',
  'Reply with JSON only: {"answer": "<final answer>", "reasoning_trace": ["<step>", "..."], "confidence": <0-1>, "verification": {"is_valid": <true|false>, "validation_errors": ["<problem>"]}, "alternative_solutions": ["<other answer>"]}',
].join('\n\n');

const solutionSchema = z.object({
  answer: z.string(),
  reasoning_trace: z.array(z.string()),
  confidence: z.number().min(0).max(1),
  verification: z.object({ is_valid: z.boolean(), validation_errors: z.array(z.string()).optional() }).optional(),
  alternative_solutions: z.array(z.string()).optional(),
});

/**
 * The reply the default synthesizer prompt asks for (snake_case, as models write it). A custom
 * prompt must still ask for it.
 *
 * @example
 * ```ts
 * import { synthesizerReplySchema } from '@tot/core';
 *
 * synthesizerReplySchema.parse({ answer: '(10 - 4) * (13 - 9) = 24', reasoning_trace: ['13 - 9 = 4'], confidence: 0.9 });
 * ```
 */
export const synthesizerReplySchema = solutionSchema;

const optionsSchema = z.strictObject({
  model: languageModelSchema,
  verify: z.custom<SolutionVerifier>((v) => typeof v === 'function').optional(),
  prompt: promptTemplateSchema.optional(),
  system: z.string().optional(),
  maxRepairs: z.number().int().min(0).max(20).default(2),
});

/**
 * Runs a host verifier and turns whatever it does (a boolean, a verdict, a throw) into the Tree-of-Thoughts agent protocol's
 * verification object.
 *
 * @example
 * ```ts
 * import { runVerifier } from '@tot/core';
 *
 * await runVerifier(() => { throw new Error('parser crashed'); }, '24', { bestPath: [], problem: 'p', taskType: 't' });
 * // { isValid: false, validationErrors: ['verifier failed: parser crashed'] }
 * ```
 */
export async function runVerifier(verify: SolutionVerifier, answer: string, input: SynthesizeInput): Promise<FinalSolution['verification']> {
  try {
    const verdict = await verify(answer, input);
    if (typeof verdict === 'boolean') return { isValid: verdict };
    return { isValid: verdict.isValid === true, ...(verdict.validationErrors ? { validationErrors: [...verdict.validationErrors] } : {}) };
  } catch (error) {
    return { isValid: false, validationErrors: [`verifier failed: ${error instanceof Error ? error.message : String(error)}`] };
  }
}

/**
 * An LLM-backed {@link Synthesizer}: writes the Tree-of-Thoughts agent protocol's final_solution from the best path. With a
 * host `verify`, `verification` is the verifier's verdict; otherwise it is the model's own check.
 *
 * @example
 * ```ts
 * import { createSynthesizer } from '@tot/core';
 *
 * const synthesizer = createSynthesizer({ model, verify: (answer) => checkGame24(answer) });
 * ```
 */
export function createSynthesizer(options: SynthesizerOptions): Synthesizer {
  const o = parseOptions(optionsSchema, options, 'createSynthesizer');
  return {
    config: { kind: 'llm-synthesizer', modelId: o.model.modelId, prompt: describePrompt(o.prompt ?? DEFAULT_SYNTHESIZER_PROMPT), system: o.system, maxRepairs: o.maxRepairs, verify: o.verify === undefined ? undefined : 'function' },
    async synthesize(input, callOptions = {}): Promise<FinalSolution> {
      const model = roleModel(o.model, callOptions);
      const steps = input.bestPath.slice(1);
      const prompt = renderPrompt(o.prompt ?? DEFAULT_SYNTHESIZER_PROMPT, {
        problem: input.problem,
        taskType: input.taskType,
        path: steps.length === 0 ? '(no steps)' : steps.map((n, i) => `${i + 1}. ${n.content}`).join('\n'),
      });
      const { value } = await generateChecked(model, {
        prompt,
        schema: solutionSchema,
        format: 'json',
        useResponseFormat: true,
        ...(o.system === undefined ? {} : { system: o.system }),
        maxRepairs: o.maxRepairs,
        temperature: 0,
        tags: { role: 'synthesizer' },
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        });
      const verification = o.verify
        ? await runVerifier(o.verify, value.answer, input)
        : {
            isValid: value.verification?.is_valid ?? false,
            ...(value.verification?.validation_errors ? { validationErrors: value.verification.validation_errors } : {}),
          };
      return {
        answer: value.answer,
        reasoningTrace: value.reasoning_trace,
        confidence: value.confidence,
        verification,
        ...(value.alternative_solutions ? { alternativeSolutions: value.alternative_solutions } : {}),
      };
    },
  };
}
