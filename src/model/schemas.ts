import { z } from 'zod';
import type { LanguageModel } from './types.js';

/**
 * Whether `value` looks like a {@link LanguageModel} (has a string `modelId` and a `generate` function).
 *
 * @example
 * ```ts
 * import { isLanguageModel } from '@tot/core';
 *
 * isLanguageModel({ modelId: 'x', generate: async () => ({ outputs: [''], usage: {} }) }); // true
 * ```
 */
export function isLanguageModel(value: unknown): value is LanguageModel {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as LanguageModel).modelId === 'string' &&
    typeof (value as LanguageModel).generate === 'function'
  );
}

export const languageModelSchema = z.custom<LanguageModel>(isLanguageModel, 'expected a LanguageModel ({ modelId, generate })');

export const chatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});

export const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
});

export const generateRequestSchema = z.object({
  messages: z.array(chatMessageSchema).min(1, 'expected at least one message'),
  n: z.number().int().positive().optional(),
  temperature: z.number().min(0).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  stop: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  responseFormat: z
    .union([z.object({ type: z.literal('text') }), z.object({ type: z.literal('json'), schema: z.object({}).loose().optional() })])
    .optional(),
  tags: z.record(z.string(), z.string()).optional(),
});

export const generateResultSchema = z.object({
  outputs: z.array(z.string()),
  usage: usageSchema,
  finishReason: z.enum(['stop', 'length', 'content-filter', 'error', 'other']).optional(),
  cacheHit: z.boolean().optional(),
  raw: z.unknown().optional(),
});
