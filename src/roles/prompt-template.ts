import { z } from 'zod';
import { TotError } from '../errors/index.js';

/**
 * A prompt: a string with `{{name}}` placeholders, or a function of the variables.
 *
 * @example
 * ```ts
 * import type { PromptTemplate } from '@tot/core';
 *
 * const t1: PromptTemplate = 'Problem: {{problem}}\nPropose {{k}} next steps.';
 * const t2: PromptTemplate = (v) => `Problem: ${v.problem}`;
 * ```
 */
export type PromptTemplate = string | ((variables: Record<string, string>) => string);

/**
 * Fills a {@link PromptTemplate}. A placeholder with no variable throws `INVALID_ARGUMENT`, so a
 * typo in a custom prompt is found at the first call rather than sent to a model.
 *
 * @example
 * ```ts
 * import { renderPrompt } from '@tot/core';
 *
 * renderPrompt('Numbers: {{numbers}}', { numbers: '4 9 10 13' }); // 'Numbers: 4 9 10 13'
 * ```
 */
export function renderPrompt(template: PromptTemplate, variables: Record<string, string>): string {
  if (typeof template === 'function') return template(variables);
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_match, name: string) => {
    const value = variables[name];
    if (value === undefined) {
      throw new TotError('INVALID_ARGUMENT', `prompt: unknown placeholder {{${name}}} (known: ${Object.keys(variables).join(', ')})`, {
        details: { field: 'prompt', placeholder: name },
      });
    }
    return value;
  });
}

/** A zod schema for a {@link PromptTemplate} option. */
export const promptTemplateSchema = z.union([z.string().min(1), z.custom<(variables: Record<string, string>) => string>((v) => typeof v === 'function', 'expected a string or a function')]);

/** A prompt in a run's configuration: its text, or that it is a function. */
export function describePrompt(template: PromptTemplate | undefined): string | undefined {
  return typeof template === 'function' ? 'function' : template;
}
