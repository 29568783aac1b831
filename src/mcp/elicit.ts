import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitResultSchema, type ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { clipText } from '../internal/clip-text.js';
import type { Question } from '../run/question.js';

/**
 * What a person said to an elicitation: the form's content when they accepted it, or that they
 * declined or dismissed it (no answer).
 */
export type ElicitOutcome = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' | 'cancel' };

/** Asks the client's user a question (`elicitation/create`, form mode), tied to one tool call. */
export type Elicit = (question: Question, options: { signal: AbortSignal }) => Promise<ElicitOutcome>;

/** Longest preview put in the message: a plan can be up to 1 MiB, and a form shows a short text. */
const MAX_PREVIEW_CHARS = 8_000;

type Primitive = Record<string, unknown> & { type: 'string' | 'number' | 'integer' | 'boolean' };

/**
 * A form's schema from a question's: elicitation takes a flat object of primitive fields, so the
 * question's JSON Schema is read for its properties and required names, and anything else (nested
 * values, `additionalProperties`) is left out. A question whose answer is not such an object
 * cannot be a form: undefined.
 */
function formSchema(schema: object | undefined): { type: 'object'; properties: Record<string, Primitive>; required?: string[] } | undefined {
  const s = schema as { type?: unknown; properties?: Record<string, Record<string, unknown>>; required?: unknown } | undefined;
  if (s?.type !== 'object' || typeof s.properties !== 'object') return undefined;
  const properties: Record<string, Primitive> = {};
  for (const [name, p] of Object.entries(s.properties)) {
    if (!['string', 'number', 'integer', 'boolean'].includes(p.type as string)) return undefined;
    const { type, title, description, maxLength, minLength, minimum, maximum, enum: choices, default: fallback } = p;
    properties[name] = Object.fromEntries(Object.entries({ type, title, description, maxLength, minLength, minimum, maximum, enum: choices, default: fallback }).filter(([, v]) => v !== undefined)) as Primitive;
  }
  return { type: 'object', properties, ...(Array.isArray(s.required) ? { required: s.required as string[] } : {}) };
}

/**
 * The client's elicitation, when its capabilities say it takes forms: the question's words and its
 * preview (as JSON, clipped) are the message, its answer's schema the form. Undefined when the
 * client declared no elicitation, or only URL mode.
 */
export function clientElicitation(server: Server, relatedRequestId: string | number): Elicit | undefined {
  const caps = server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
  if (!caps) return undefined;
  // An empty capability object is form mode (clients written before URL mode declared just {}).
  const forms = caps.form !== undefined || caps.url === undefined;
  if (!forms) return undefined;
  return async (question, { signal }) => {
    const requestedSchema = formSchema(question.schema);
    if (!requestedSchema) throw new Error(`question ${question.id} has an answer that is not a flat form`);
    const preview = question.preview === undefined ? '' : `\n\n${clipText(JSON.stringify(question.preview, null, 2), MAX_PREVIEW_CHARS)}`;
    // Read off the question's schema field by field above, so it is the SDK's form schema.
    const params = { message: `${question.question}${preview}`, requestedSchema: requestedSchema as ElicitRequestFormParams['requestedSchema'] };
    // The SDK's elicitInput insists on a declared `form` capability; a client that declared {}
    // takes forms too, and is sent the request without a mode, as the spec before modes had it.
    const result = caps.form
      ? await server.elicitInput({ mode: 'form', ...params }, { signal, relatedRequestId })
      : await server.request({ method: 'elicitation/create', params }, ElicitResultSchema, { signal, relatedRequestId });
    if (result.action === 'accept') return { action: 'accept', content: { ...(result.content ?? {}) } };
    return { action: result.action };
  };
}
