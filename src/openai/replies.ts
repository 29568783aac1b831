import { z } from 'zod';
import { compileSafeParse } from '../internal/fast-check.js';

/** The parts of a chat completion the adapter reads. */
export const chatCompletionSchema = z
  .object({
    choices: z.array(
      z
        .object({
          index: z.number().optional(),
          message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }).loose().nullish(),
          finish_reason: z.string().nullish(),
        })
        .loose(),
    ),
    usage: z.object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).loose().nullish(),
  })
  .loose();

/** The parts of an embeddings response the adapter reads; the vectors' values are judged by `checkedEmbeddings`, which names what is wrong. */
export const embeddingsResponseSchema = z.object({ data: z.array(z.object({ index: z.number().optional(), embedding: z.array(z.unknown()) }).loose()) }).loose();

export const parseChatCompletion = compileSafeParse(chatCompletionSchema);
export const parseEmbeddingsResponse = compileSafeParse(embeddingsResponseSchema);

/** Choices or embeddings in the order of their `index` (servers send them in order; a copy is sorted only when one does not). */
export function inIndexOrder<T extends { index?: number | undefined }>(items: T[]): T[] {
  return items.every((item, i) => item.index === undefined || item.index === i) ? items : [...items].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
}
