import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { compileFastParse } from '../internal/fast-check.js';
import { jsonSchemaOf, standardSchemaOption, type SchemaOutput, type StandardSchemaV1 } from '../internal/standard-schema.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import { callModel } from '../model/call-model.js';
import { chatMessageSchema, languageModelSchema } from '../model/schemas.js';
import type { ChatMessage, GenerateRequest, LanguageModel, Usage } from '../model/types.js';
import type { StructuredFormat } from './extract-candidates.js';
import { parseStructuredAsync, tooLongError } from './parse-structured.js';
import { DEFAULT_MAX_REPLY_CHARS } from './syntax-limits.js';

/**
 * What a repair prompt is built from.
 *
 * @example
 * ```ts
 * import type { RepairContext } from '@tot/core';
 *
 * const prompt = (c: RepairContext) => `Attempt ${c.attempt} failed: ${c.error}. Answer in ${c.format}.`;
 * ```
 */
export interface RepairContext {
  /** Why the last reply could not be used. */
  error: string;
  /** The last reply. */
  raw: string;
  format: StructuredFormat;
  /** 1 for the first repair. */
  attempt: number;
}

/**
 * Options of {@link generateStructured}. Give either `messages` or `prompt` (with an optional
 * `system`). `schema` is any Standard Schema: zod 3.24+, zod 4, valibot, arktype, …
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { GenerateStructuredOptions } from '@tot/core';
 *
 * const options: GenerateStructuredOptions<z.ZodObject<{ score: z.ZodNumber }>> = {
 *   prompt: 'Rate this step from 0 to 10 as {"score": n}.',
 *   schema: z.object({ score: z.number().min(0).max(10) }),
 *   maxRepairs: 1,
 * };
 * ```
 */
export interface GenerateStructuredOptions<S extends StandardSchemaV1> {
  /** What the reply must be: any Standard Schema (zod 3.24+, zod 4, valibot, arktype, …). */
  schema: S;
  messages?: ChatMessage[];
  prompt?: string;
  system?: string;
  /** Default `'json'`. */
  format?: StructuredFormat;
  /** Re-asks after an unusable reply. Default 2. */
  maxRepairs?: number;
  /** Builds the message that asks for a corrected reply. */
  repairPrompt?: (context: RepairContext) => string;
  /**
   * A rewrite of an unusable reply to try before asking for a repair (for a known, mechanical
   * defect of a model's output, such as unquoted colons in YAML). Return `undefined` for none.
   */
  fallback?: (text: string) => string | undefined;
  /**
   * Send `responseFormat: { type: 'json', schema }` (JSON only). Default true. The JSON Schema
   * comes from zod 4's `z.toJSONSchema`, or from the schema's own converter (Standard JSON
   * Schema); a schema that has neither (zod 3, valibot) is sent as JSON mode without a schema.
   */
  useResponseFormat?: boolean;
  /**
   * The longest reply read, in characters. A longer reply is a runaway (a model repeating itself)
   * and fails at once with `INVALID_FORMAT` naming the limit (`details.maxReplyChars`,
   * `details.replyChars`), unread and without a repair (which would send it back to the model).
   * Default 1,000,000, about 250,000 tokens.
   */
  maxReplyChars?: number;
  temperature?: number;
  maxOutputTokens?: number;
  seed?: number;
  tags?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * The value of {@link generateStructured} and what it took to get it.
 *
 * @example
 * ```ts
 * import type { GenerateStructuredResult } from '@tot/core';
 *
 * const log = (r: GenerateStructuredResult<unknown>) => console.log(r.attempts, r.usage);
 * ```
 */
export interface GenerateStructuredResult<T> {
  value: T;
  /** Model calls made (1 + repairs). */
  attempts: number;
  /** Every raw reply, in order. */
  rawOutputs: string[];
  /** Usage summed over the attempts (a field is `undefined` if any attempt did not report it). */
  usage: Usage;
}

export const optionsSchema = z
  .strictObject({
    schema: standardSchemaOption,
    messages: z.array(chatMessageSchema).min(1).optional(),
    prompt: z.string().optional(),
    system: z.string().optional(),
    format: z.enum(['json', 'yaml']).default('json'),
    maxRepairs: z.number().int().min(0).max(20).default(2),
    repairPrompt: fnSchema<(context: RepairContext) => string>().optional(),
    fallback: fnSchema<(text: string) => string | undefined>().optional(),
    useResponseFormat: z.boolean().default(true),
    maxReplyChars: z.number().int().positive().default(DEFAULT_MAX_REPLY_CHARS),
    temperature: z.number().min(0).optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    seed: z.number().int().optional(),
    tags: z.record(z.string(), z.string()).optional(),
    signal: signalSchema,
  })
  .refine((o) => (o.messages === undefined) !== (o.prompt === undefined), {
    message: 'give exactly one of messages or prompt',
    path: ['messages'],
  });

const fastOptions = compileFastParse(optionsSchema) ?? (() => undefined);

/**
 * The default repair request: names the error and asks for only the corrected value.
 *
 * @example
 * ```ts
 * import { defaultRepairPrompt } from '@tot/core';
 *
 * defaultRepairPrompt({ error: 'invalid JSON: Unexpected end of JSON input', raw: '{"a": 1', format: 'json', attempt: 1 });
 * ```
 */
export function defaultRepairPrompt(context: RepairContext): string {
  const name = context.format.toUpperCase();
  return [
    `Your previous reply could not be used: ${context.error}`,
    `Reply again with only the corrected ${name}, with no other text.`,
  ].join('\n');
}

function addUsage(total: Usage, next: Usage, first: boolean): Usage {
  const sum = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a + b);
  const input = first ? next.inputTokens : sum(total.inputTokens, next.inputTokens);
  const output = first ? next.outputTokens : sum(total.outputTokens, next.outputTokens);
  return { ...(input === undefined ? {} : { inputTokens: input }), ...(output === undefined ? {} : { outputTokens: output }) };
}

/**
 * Asks a model for a value of a zod schema and gets it back typed, whatever the model wraps it
 * in: bare JSON, ```json / ```yaml fences, or prose around them. An unusable reply (bad syntax
 * or a schema mismatch) is answered with a repair request naming the error, up to `maxRepairs`
 * times; then it throws `INVALID_FORMAT` with every raw reply in `details.rawOutputs` and the last
 * zod issues in `details.issues`. Model failures keep their own codes (`ABORTED`,
 * `GENERATION_FAILED`, `BUDGET_EXCEEDED`, …).
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { generateStructured } from '@tot/core';
 *
 * const { value } = await generateStructured(model, {
 *   prompt: 'Evaluate "10 - 4 = 6 (left: 6 9 13)" for reaching 24. Reply as JSON {"score": 0-10, "reasoning": "..."}.',
 *   schema: z.object({ score: z.number().min(0).max(10), reasoning: z.string() }),
 * });
 * value.score; // number
 * ```
 */
export async function generateStructured<S extends StandardSchemaV1>(
  model: LanguageModel,
  options: GenerateStructuredOptions<S>,
): Promise<GenerateStructuredResult<SchemaOutput<S>>> {
  parseOptions(languageModelSchema, model, 'generateStructured', 'model');
  const o = fastOptions(options) ?? parseOptions(optionsSchema, options, 'generateStructured');
  return generateChecked(model, o as CheckedStructuredOptions<S>);
}

/** {@link GenerateStructuredOptions} as their schema returns them: defaults filled in. */
export type CheckedStructuredOptions<S extends StandardSchemaV1> = GenerateStructuredOptions<S> & Pick<z.output<typeof optionsSchema>, 'format' | 'maxRepairs' | 'useResponseFormat'>;

/**
 * `generateStructured` for the library's own callers (roles, runners), whose options are built from
 * values their constructors validated: no second check per call. Why: a chain-of-thought step
 * makes one call, and the check of its options cost about a twentieth of the step. Not exported
 * from the package; a wrong prompt still fails in `callModel`'s request check.
 */
export async function generateChecked<S extends StandardSchemaV1>(model: LanguageModel, o: CheckedStructuredOptions<S>): Promise<GenerateStructuredResult<SchemaOutput<S>>> {
  const schema = o.schema;
  const repairPrompt = o.repairPrompt ?? defaultRepairPrompt;
  let messages: ChatMessage[] = o.messages
    ? [...o.messages]
    : [...(o.system === undefined ? [] : [{ role: 'system' as const, content: o.system }]), { role: 'user' as const, content: o.prompt! }];
  const request: Omit<GenerateRequest, 'messages'> = {
    ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
    ...(o.maxOutputTokens === undefined ? {} : { maxOutputTokens: o.maxOutputTokens }),
    ...(o.seed === undefined ? {} : { seed: o.seed }),
    ...(o.tags === undefined ? {} : { tags: o.tags }),
  };
  if (o.format === 'json' && o.useResponseFormat) {
    const jsonSchema = jsonSchemaOf(schema);
    request.responseFormat = jsonSchema === undefined ? { type: 'json' } : { type: 'json', schema: jsonSchema };
  }

  const rawOutputs: string[] = [];
  const errors: string[] = [];
  let usage: Usage = {};
  let lastIssues: unknown[] = [];
  let lastReason: 'empty' | 'syntax' | 'schema' = 'syntax';
  const maxReplyChars = o.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS;
  for (let attempt = 0; attempt <= o.maxRepairs; attempt++) {
    const result = await callModel(model, { ...request, messages }, { signal: o.signal });
    usage = addUsage(usage, result.usage, attempt === 0);
    const raw = result.outputs[0] ?? '';
    rawOutputs.push(raw);
    if (raw.length > maxReplyChars) {
      const error = tooLongError(raw.length, maxReplyChars);
      throw new TotError('INVALID_FORMAT', `The model's reply was too long: ${error} (raise maxReplyChars to read longer replies).`, {
        details: { format: o.format, rawOutputs, errors: [...errors, error], issues: [], usage, attempts: rawOutputs.length, maxReplyChars, replyChars: raw.length },
      });
    }
    let parsed = await parseStructuredAsync(raw, { schema, format: o.format, signal: o.signal, maxReplyChars });
    const rewritten = parsed.success ? undefined : o.fallback?.(raw);
    if (rewritten !== undefined) {
      const second = await parseStructuredAsync(rewritten, { schema, format: o.format, signal: o.signal, maxReplyChars });
      if (second.success) parsed = second;
    }
    if (parsed.success) return { value: parsed.value, attempts: attempt + 1, rawOutputs, usage };
    errors.push(parsed.error);
    lastIssues = parsed.issues;
    lastReason = parsed.reason;
    // A new array per attempt: the request of an earlier attempt (held by a run's llm.requested event) never changes.
    messages = [...messages, { role: 'assistant', content: raw }, { role: 'user', content: repairPrompt({ error: parsed.error, raw, format: o.format, attempt: attempt + 1 }) }];
  }
  const what = lastReason === 'schema' ? `a reply matching the schema` : `valid ${o.format.toUpperCase()}`;
  throw new TotError('INVALID_FORMAT', `The model did not produce ${what} after ${rawOutputs.length} attempt(s): ${errors.at(-1)}`, {
    details: { format: o.format, rawOutputs, errors, issues: lastIssues, usage, attempts: rawOutputs.length },
  });
}
