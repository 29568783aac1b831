import { z } from 'zod';
import type { ErrorLocation } from '../errors/index.js';
import { isStandardSchema, NOT_A_SCHEMA, type SchemaOutput, type StandardSchemaV1 } from '../internal/standard-schema.js';
import { fnSchema } from '../internal/validate.js';

/**
 * What a program asks a person: the words, the key that names the question within where it is
 * asked, and optionally the schema every answer must pass and a preview (a plan, a diff) to show.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { AskRequest } from '@tot/core';
 *
 * const approval: AskRequest<z.ZodBoolean> = { key: 'approve-plan', question: 'Run this plan?', schema: z.boolean(), preview: { steps: ['migrate', 'deploy'] } };
 * ```
 */
export interface AskRequest<S extends StandardSchemaV1 = StandardSchemaV1> {
  /** The question, in words for a person. */
  question: string;
  /**
   * Names the question where it is asked: with the place (a node, an operation, a branch, a round)
   * it makes the question's id, so that a resumed program asking it again gets the same id and,
   * once it is answered, the recorded answer.
   */
  key: string;
  /** Every answer must pass it (a handler's and a resume's); default: any JSON value. */
  schema?: S;
  /** Data that helps the person decide (a plan, a diff), recorded with the question. Must be JSON. */
  preview?: unknown;
}

/**
 * A question of a run, as a handler receives it and as a waiting run's result lists it.
 *
 * @example
 * ```ts
 * import type { Question } from '@tot/core';
 *
 * const line = (q: Question) => `${q.id}: ${q.question}`;
 * ```
 */
export interface Question {
  /** Stable across resumes: from the key and where the question was asked. Answer by it. */
  id: string;
  key: string;
  question: string;
  /** Where in the run it was asked (a node, an operation, a branch, a round), if the runner knows. */
  where?: ErrorLocation;
  /** The JSON Schema of an acceptable answer, when the question's schema has one. */
  schema?: object;
  preview?: unknown;
}

/**
 * Answers questions in process: a CLI prompt, a test, an approval service. It gets the question
 * and a signal that aborts when the run stops; what it returns (or resolves to) is validated
 * against the question's schema and recorded as the answer.
 *
 * @example
 * ```ts
 * import type { AskHandler } from '@tot/core';
 *
 * const approveAll: AskHandler = (question) => (question.key === 'approve-plan' ? true : undefined);
 * ```
 */
export type AskHandler = (question: Question, options: { signal: AbortSignal }) => unknown;

/**
 * Answers given to a resume, by question id (a waiting result's `pending[].id`).
 *
 * @example
 * ```ts
 * import type { Answers } from '@tot/core';
 *
 * const answers: Answers = { 'strategy/pick-one#pick': 2 };
 * ```
 */
export type Answers = Readonly<Record<string, unknown>>;

/**
 * What an `ask` resolves to: the schema's output, or any JSON value without a schema.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { AskAnswer } from '@tot/core';
 *
 * const Pick = z.number().int();
 * type Pick = AskAnswer<typeof Pick>; // number
 * ```
 */
export type AskAnswer<S extends StandardSchemaV1 | undefined> = S extends StandardSchemaV1 ? SchemaOutput<S> : unknown;

/** A question's words, key and preview are kept whole in the log: bounded so that one ask cannot bloat it. */
export const MAX_QUESTION_CHARS = 10_000;
/** The largest answer or preview, as JSON. */
export const MAX_ANSWER_JSON_CHARS = 1_048_576;

export const askRequestSchema = z.strictObject({
  question: z.string().min(1).max(MAX_QUESTION_CHARS),
  key: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\s]+$/, 'a key has no whitespace'),
  schema: z.custom<StandardSchemaV1>(isStandardSchema, NOT_A_SCHEMA).optional(),
  preview: z.unknown().optional(),
});

export const onAskSchema = fnSchema<AskHandler>().optional();

export const answersSchema = z.record(z.string().min(1), z.unknown()).optional();


/**
 * The id of a question: its key, after where it was asked. The same place and key give the same
 * id in every process, which is what lets a resume recognise a question it has the answer to.
 */
export function questionId(key: string, where: ErrorLocation | undefined): string {
  if (where === undefined) return key;
  const { kind, ...rest } = where;
  const parts = Object.keys(rest)
    .sort()
    .map((k) => String((rest as Record<string, unknown>)[k]));
  return `${[kind, ...parts].join('/')}#${key}`;
}
