import { z } from 'zod';
import { abortable, abortedError, throwIfAborted } from '../../internal/abort.js';
import { isStandardSchema, issueSentences, jsonSchemaOf as convertToJsonSchema, NOT_A_SCHEMA, validatorOf, type SchemaOutput, type StandardSchemaV1 } from '../../internal/standard-schema.js';
import { parseOptions, signalSchema } from '../../internal/validate.js';
import { calculateDate, calculateDateInputSchema, getNow, getNowInputSchema, parseGetNowOptions, type CalculateDateInput, type GetNowOptions } from './date-tools.js';

/**
 * What a tool's `run` is given besides its input.
 *
 * @example
 * ```ts
 * import type { ToolRunContext } from '@tot/core/deliberation';
 *
 * const context: ToolRunContext = { signal: AbortSignal.timeout(5_000) };
 * ```
 */
export interface ToolRunContext {
  /** Fires when the deliberation no longer needs the answer. */
  signal?: AbortSignal;
}

/**
 * A tool an agent may call in a deliberation, by replying with `{"tool": name, ...input}`.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { AgentTool } from '@tot/core/deliberation';
 *
 * const add: AgentTool<z.ZodObject<{ a: z.ZodNumber; b: z.ZodNumber }>> = {
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => ({ sum: a + b }),
 * };
 * ```
 */
export interface AgentTool<S extends StandardSchemaV1 = StandardSchemaV1> {
  /** The name agents call it by, e.g. `get_now`. */
  name: string;
  /** One sentence on what it answers, shown to the model. */
  description: string;
  /**
   * The schema of the input (the request without its `"tool"` key): any Standard Schema (zod
   * 3.24+, zod 4, valibot, arktype, …). Its fields are shown to the model when a JSON Schema can
   * be had from it (zod 4, or a library's own Standard JSON Schema converter), with zod's
   * `.describe()` texts.
   */
  input: S;
  /**
   * Answers a request whose input the schema accepted; the result becomes the reply's `data`, and
   * a throw becomes its `error`.
   *
   * @example
   * ```ts
   * import { agentTools } from '@tot/core/deliberation';
   *
   * const [getNowTool] = agentTools({ timeZone: 'UTC' });
   * await getNowTool!.run({}, {});
   * ```
   */
  run(input: SchemaOutput<S>, context: ToolRunContext): unknown;
}

/**
 * A tool's answer to one request: `{ success: true, data }` or `{ success: false, error }`, where
 * the error tells the model what to send instead.
 *
 * @example
 * ```ts
 * import type { ToolCallResult } from '@tot/core/deliberation';
 *
 * const result: ToolCallResult = { tool: 'calculate_date', success: true, data: { result_date: '2025-12-21', weekday: 'Sunday' } };
 * ```
 */
export interface ToolCallResult {
  /** The tool asked for (`""` when the request named none). */
  tool: string;
  /** Whether the tool answered. */
  success: boolean;
  /** The tool's answer, when it succeeded. */
  data?: unknown;
  /** Why it did not, and what to send instead. */
  error?: string;
}

/**
 * A tool request read from a model's reply: the tool's name under `tool`, its input beside it.
 *
 * @example
 * ```ts
 * import type { ToolRequest } from '@tot/core/deliberation';
 *
 * const request: ToolRequest = { tool: 'calculate_date', base_date: '2025-12-04', offset: { days: 3 } };
 * ```
 */
export interface ToolRequest {
  /** The name of the tool asked for. */
  tool: string;
  /** The tool's input fields. */
  [field: string]: unknown;
}

/**
 * The protocol's tools, `get_now` and `calculate_date`, with `get_now` telling the time in the
 * given zone by the given clock.
 *
 * @throws `INVALID_ARGUMENT` for an unknown time zone.
 *
 * @example
 * ```ts
 * import { agentTools, runToolCall } from '@tot/core/deliberation';
 *
 * const tools = agentTools({ timeZone: 'Asia/Shanghai' });
 * await runToolCall(tools, { tool: 'calculate_date', base_date: '2025-12-04', offset: { weeks: 2, days: 3 } });
 * // { tool: 'calculate_date', success: true, data: { result_date: '2025-12-21', weekday: 'Sunday' } }
 * ```
 */
export function agentTools(options: GetNowOptions = {}): AgentTool[] {
  const clock = parseGetNowOptions(options, 'agentTools');
  const getNowTool: AgentTool<typeof getNowInputSchema> = {
    name: 'get_now',
    description: 'Tells the current local date, time (to the second, without an offset), weekday and time zone.',
    input: getNowInputSchema,
    run: () => getNow(clock),
  };
  const calculateDateTool: AgentTool<typeof calculateDateInputSchema> = {
    name: 'calculate_date',
    description: 'Moves a date by whole weeks and days (negative to go back) and tells the date reached and its weekday.',
    input: calculateDateInputSchema,
    run: (input: CalculateDateInput) => calculateDate(input),
  };
  return [getNowTool, calculateDateTool];
}

const runOptionsSchema = z.strictObject({ signal: signalSchema }).optional();
/** A zod schema for one {@link AgentTool}: a name, a function, and a Standard Schema for the input. */
export const agentToolSchema = z
  .custom<AgentTool>((v) => typeof v === 'object' && v !== null && typeof (v as AgentTool).name === 'string' && typeof (v as AgentTool).run === 'function', 'expected a tool ({ name, description, input, run })')
  .check((ctx) => {
    // Checked apart, so that a tool without a schema is refused with the field named (`tools[0].input`).
    if (!isStandardSchema(ctx.value.input)) ctx.issues.push({ code: 'custom', message: NOT_A_SCHEMA, input: ctx.value.input, path: ['input'] });
  });
const toolsSchema = z.array(agentToolSchema);

/**
 * `text` trimmed, and without one markdown code fence around it (three backticks and a language
 * word, then three backticks at the end). By index, not a regular expression: a reply is
 * untrusted text, and a pattern with two whitespace runs around a lazy body backtracks
 * quadratically on a long run of spaces.
 */
function withoutFence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('```') || !trimmed.endsWith('```')) return trimmed;
  let i = 3;
  while (i < trimmed.length && /[\w-]/.test(trimmed[i]!)) i++;
  return i > trimmed.length - 3 ? trimmed : trimmed.slice(i, trimmed.length - 3).trim();
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Answers one tool request. Whatever the model got wrong — no `tool` key, a tool that does not
 * exist, an input the tool's schema rejects, a tool that throws — comes back as
 * `success: false` with an error saying what to send instead, for the model to read and retry.
 *
 * @throws `ABORTED` (rejects) when `options.signal` fires before the tool answers; `INVALID_ARGUMENT`
 * when `tools` is not a list of tools.
 *
 * @example
 * ```ts
 * import { agentTools, runToolCall } from '@tot/core/deliberation';
 *
 * await runToolCall(agentTools(), { tool: 'get_time' });
 * // { tool: 'get_time', success: false, error: 'There is no tool "get_time". The tools are: get_now, calculate_date. …' }
 * ```
 */
export async function runToolCall(tools: readonly AgentTool[], request: unknown, options: { signal?: AbortSignal } = {}): Promise<ToolCallResult> {
  parseOptions(toolsSchema, tools, 'runToolCall', 'tools');
  const { signal } = parseOptions(runOptionsSchema, options, 'runToolCall') ?? {};
  throwIfAborted(signal, 'tool call');
  const names = tools.map((t) => t.name).join(', ');
  if (!isPlainObject(request) || typeof request.tool !== 'string') {
    const tool = isPlainObject(request) && request.tool !== undefined ? String(request.tool) : '';
    return { tool, success: false, error: `A tool request is a JSON object whose "tool" key names the tool, e.g. ${example(tools[0])}. The tools are: ${names}.` };
  }
  const { tool: name, ...input } = request;
  const tool = tools.find((t) => t.name === name);
  if (!tool) return { tool: name, success: false, error: `There is no tool ${JSON.stringify(name)}. The tools are: ${names}. Send one of them, e.g. ${example(tools[0])}.` };
  let parsed;
  try {
    // The schema may check asynchronously (against a service, say): never waited on past an abort.
    parsed = await abortable(signal, () => validatorOf(tool.input)(input), 'tool call');
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal, 'tool call');
    const message = error instanceof Error ? error.message : String(error);
    return { tool: name, success: false, error: `${name} could not check its input: ${message}. Check the input (${example(tool)}) or go on without this tool.` };
  }
  if (!parsed.ok) {
    return { tool: name, success: false, error: `Invalid input for ${name}: ${issueSentences(parsed.issues, 3).join('; ')}. Send ${example(tool)}.` };
  }
  const value = parsed.value;
  try {
    const data = await abortable(signal, () => tool.run(value, { signal }), 'tool call');
    return { tool: name, success: true, data };
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal, 'tool call');
    const message = error instanceof Error ? error.message : String(error);
    return { tool: name, success: false, error: `${name} failed: ${message}. Check the input (${example(tool)}) or go on without this tool.` };
  }
}

/**
 * Reads a tool request from a model's reply: the reply, trimmed and without one surrounding
 * markdown code fence, must be a JSON object with a string `"tool"` key. Anything else — prose,
 * other JSON — is an ordinary reply, and gives `undefined`.
 *
 * @example
 * ```ts
 * import { parseToolRequest } from '@tot/core/deliberation';
 *
 * parseToolRequest('```json\n{"tool": "get_now"}\n```'); // { tool: 'get_now' }
 * parseToolRequest('It is Thursday.'); // undefined
 * ```
 */
export function parseToolRequest(text: string): ToolRequest | undefined {
  const body = withoutFence(text);
  // Only an object can be a request: JSON.parse is not worth starting on anything else.
  if (!body.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  return isPlainObject(value) && typeof value.tool === 'string' ? (value as ToolRequest) : undefined;
}

/**
 * Instructions for an agent's system message: how to call a tool (the JSON form, what comes
 * back) and each tool's name, description and input fields. Empty when there are no tools.
 *
 * @example
 * ```ts
 * import { agentTools, toolInstructions } from '@tot/core/deliberation';
 *
 * const system = `You are the moderator.\n\n${toolInstructions(agentTools())}`;
 * ```
 */
export function toolInstructions(tools: readonly AgentTool[]): string {
  if (tools.length === 0) return '';
  const lines = [
    `You may call a tool instead of answering: reply with only a JSON object whose "tool" key names the tool and whose other keys are its input, e.g. ${example(tools[0])}. ` +
      'The answer comes back as {"success": true, "data": {...}} or {"success": false, "error": "..."}; then go on with your reply. The tools:',
  ];
  for (const tool of tools) {
    const fields = inputFields(tool.input);
    lines.push(`- ${tool.name}: ${tool.description} Send ${example(tool)}.${fields.length > 0 ? ` Fields: ${fields.join('; ')}.` : ''}`);
  }
  return lines.join('\n');
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  description?: string;
};

/**
 * The JSON schema of a tool's input, or `undefined` when none can be had (zod 3, valibot without
 * a converter; a zod 4 schema zod cannot write one for).
 */
function jsonSchemaOf(schema: StandardSchemaV1): JsonSchema | undefined {
  return convertToJsonSchema(schema, 'input') as JsonSchema | undefined;
}

/** A compact, TypeScript-like picture of a type, short enough for a prompt. */
function typeText(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeText).join(' | ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type;
  if (type === 'array') return `${schema.items ? typeText(schema.items) : 'any'}[]`;
  if (type === 'object' || schema.properties) {
    const required = new Set(schema.required ?? []);
    const entries = Object.entries(schema.properties ?? {}).map(([key, value]) => `${JSON.stringify(key)}${required.has(key) ? '' : '?'}: ${typeText(value)}`);
    return `{${entries.join(', ')}}`;
  }
  return type ?? 'any';
}

/** A request for `tool` with its input's fields written as their types: `{"tool": "calculate_date", "base_date": string, …}`. */
function example(tool: AgentTool | undefined): string {
  if (!tool) return '{"tool": "<name>"}';
  const schema = jsonSchemaOf(tool.input);
  const required = new Set(schema?.required ?? []);
  const fields = Object.entries(schema?.properties ?? {}).map(([key, value]) => `, ${JSON.stringify(key)}${required.has(key) ? '' : '?'}: ${typeText(value)}`);
  return `{"tool": ${JSON.stringify(tool.name)}${fields.join('')}}`;
}

/** Each input field, `offset.weeks (optional): whole weeks to add`; none when no JSON Schema describes the input. */
function inputFields(input: StandardSchemaV1): string[] {
  const schema = jsonSchemaOf(input);
  if (!schema) return [];
  const out: string[] = [];
  const walk = (node: JsonSchema, path: string) => {
    for (const [key, value] of Object.entries(node.properties ?? {})) {
      const at = path === '' ? key : `${path}.${key}`;
      const required = (node.required ?? []).includes(key);
      out.push(`${at} (${required ? 'required' : 'optional'})${value.description ? `: ${value.description}` : ''}`);
      walk(value, at);
    }
  };
  walk(schema, '');
  return out;
}

