import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { canonicalJson } from '../internal/canonical-json.js';
import type { RecordedRun } from './recorded-run.js';
import { MAX_ANSWER_JSON_CHARS, type Answers } from './question.js';

const MAX_DEPTH = 64;

/** Why `value` is not plain JSON (a function, `undefined`, `NaN`, a class instance, a cycle), or `undefined` when it is. */
function notJson(value: unknown, depth: number, seen: Set<object>): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${value} is not a JSON number`;
  if (typeof value !== 'object') return `a ${typeof value} is not JSON`;
  if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
  if (seen.has(value)) return 'it refers to itself';
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return `a ${proto?.constructor?.name ?? 'class'} instance is not plain JSON`;
  seen.add(value);
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    const why = notJson(item, depth + 1, seen);
    if (why !== undefined) return why;
  }
  seen.delete(value);
  return undefined;
}

/**
 * `value` as JSON, refused with `INVALID_ARGUMENT` (naming `what`) unless it is plain JSON within
 * the size a log keeps: answers and previews are recorded, and must read back as they were given.
 */
export function jsonText(value: unknown, what: string): string {
  const why = notJson(value, 0, new Set());
  if (why !== undefined) throw new TotError('INVALID_ARGUMENT', `${what} must be plain JSON: ${why}.`, { details: { field: what } });
  const text = JSON.stringify(value);
  if (text.length > MAX_ANSWER_JSON_CHARS) throw new TotError('INVALID_ARGUMENT', `${what} is ${text.length} characters of JSON; at most ${MAX_ANSWER_JSON_CHARS} are kept.`, { details: { field: what } });
  return text;
}

const fromJsonSchema = new WeakMap<object, z.ZodType | null>();

/** The recorded JSON Schema as a validator; `null` when it cannot be read back (then the program's own schema checks alone). */
function validatorFor(schema: object): z.ZodType | null {
  let validator = fromJsonSchema.get(schema);
  if (validator === undefined) {
    try {
      validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      validator = null;
    }
    fromJsonSchema.set(schema, validator);
  }
  return validator;
}

/**
 * A resume's answers, checked against the log before anything is written: each names a question
 * the run is waiting for, is plain JSON, and fits the JSON Schema recorded with the question.
 * `INVALID_ARGUMENT` otherwise, naming the question and what is wrong. The same answer to a
 * question the log already holds is a retry of the call that gave it: left out, not refused.
 * Returns the answers the log does not hold yet.
 */
export function checkedAnswers(log: RecordedRun, answers: Answers): Answers {
  const fresh: Record<string, unknown> = {};
  const pending = [...log.questions.values()].filter((q) => q.answer === undefined).map((q) => q.asked.questionId);
  const waitingFor = pending.length === 0 ? 'it is waiting for no question' : `it is waiting for ${pending.map((id) => `"${id}"`).join(', ')}`;
  for (const [id, value] of Object.entries(answers)) {
    const question = log.questions.get(id);
    if (question === undefined) throw new TotError('INVALID_ARGUMENT', `Run "${log.runId}" asked no question "${id}": ${waitingFor}. Nothing was written.`, { details: { field: `answers.${id}` } });
    if (question.answer !== undefined) {
      if (canonicalJson(question.answer.value) === canonicalJson(value)) continue;
      throw new TotError('INVALID_ARGUMENT', `Question "${id}" of run "${log.runId}" was answered already, with another answer: ${waitingFor}. Nothing was written.`, { details: { field: `answers.${id}` } });
    }
    jsonText(value, `answers["${id}"]`);
    const schema = question.asked.schema;
    const validator = schema === undefined ? null : validatorFor(schema);
    const checked = validator?.safeParse(value);
    if (checked && !checked.success) {
      const issues = checked.error.issues.map((i) => (i.path.length === 0 ? i.message : `${i.path.join('.')}: ${i.message}`));
      throw new TotError('INVALID_ARGUMENT', `The answer to "${id}" does not fit the question's schema: ${issues.slice(0, 3).join('; ')}. Nothing was written; the run is still waiting.`, {
        details: { field: `answers.${id}`, issues },
      });
    }
    fresh[id] = value;
  }
  return fresh;
}
