import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { LanguageModel } from '../model/types.js';
import { renderPrompt, type PromptTemplate } from '../roles/prompt-template.js';
import { generateChecked } from '../structured/generate-structured.js';
import type { EvalFunction, FractalTool, FrameContext, ThinkFunction } from './types.js';

/**
 * The default think prompt. Variables: `goal`, `ancestors`, `todo`, `done`, `tools`, `toolResults`.
 *
 * @example
 * ```ts
 * import { DEFAULT_THINK_PROMPT } from '@tot/core/fractal';
 *
 * console.log(DEFAULT_THINK_PROMPT);
 * ```
 */
export const DEFAULT_THINK_PROMPT = [
  'You work on one goal inside a larger task.',
  'Larger goals, outermost first:\n{{ancestors}}',
  'Your goal: {{goal}}',
  'Done so far:\n{{done}}',
  'Tools you may call:\n{{tools}}',
  'Tool results so far:\n{{toolResults}}',
  'If you can achieve the goal directly, do it and reply {"type": "RETURN", "description": "<the result>"}.',
  'If it needs several steps, write a plan in plain language and reply {"type": "TODO", "description": "<the numbered plan>"}.',
  'To call a tool first, reply {"type": "TOOL", "tool": "<name>", "input": {…}}.',
  'Reply with JSON only.',
].join('\n\n');

/**
 * The default eval prompt. Variables: `goal`, `ancestors`, `todo`, `done`.
 *
 * @example
 * ```ts
 * import { DEFAULT_EVAL_PROMPT } from '@tot/core/fractal';
 *
 * console.log(DEFAULT_EVAL_PROMPT);
 * ```
 */
export const DEFAULT_EVAL_PROMPT = [
  'You decide the next move on one goal inside a larger task.',
  'Larger goals, outermost first:\n{{ancestors}}',
  'Your goal: {{goal}}',
  'The plan:\n{{todo}}',
  'Results of the sub-goals so far (failures included):\n{{done}}',
  'Either start the next sub-goal of the plan — or redo or repair one whose result failed — and reply {"type": "CALL", "description": "<the sub-goal, self-contained>"},',
  'or, if the goal is achieved, reply {"type": "RETURN", "description": "<the result of this goal, built from the results>"}.',
  'Reply with JSON only.',
].join('\n\n');

const thinkSchema = z.discriminatedUnion('type', [
  z.object({ type: z.enum(['RETURN', 'TODO']), description: z.string().min(1) }),
  z.object({ type: z.literal('TOOL'), tool: z.string().min(1), input: z.unknown() }),
]);
const evalSchema = z.object({ type: z.enum(['RETURN', 'CALL']), description: z.string().min(1) });

/**
 * The reply {@link DEFAULT_THINK_PROMPT} asks for: the result (`RETURN`), a plan (`TODO`) or a
 * tool call (`TOOL`). A custom think prompt must still ask for it.
 *
 * @example
 * ```ts
 * import { thinkReplySchema } from '@tot/core/fractal';
 *
 * thinkReplySchema.parse({ type: 'TODO', description: '1. Outline 2. Draft' });
 * ```
 */
export const thinkReplySchema = thinkSchema;

/**
 * The reply {@link DEFAULT_EVAL_PROMPT} asks for: the next sub-goal (`CALL`) or the goal's result
 * (`RETURN`). A custom eval prompt must still ask for it.
 *
 * @example
 * ```ts
 * import { evalReplySchema } from '@tot/core/fractal';
 *
 * evalReplySchema.parse({ type: 'CALL', description: 'Draft the outline' });
 * ```
 */
export const evalReplySchema = evalSchema;

/** What a call is about, for traces and for test models that answer by role and frame. */
function frameTags(role: 'think' | 'eval', context: FrameContext): Record<string, string> {
  return { role, frame: context.frame.id, depth: String(context.ancestors.length), goal: context.frame.goal };
}

function variables(context: FrameContext, tools: Record<string, FractalTool>): Record<string, string> {
  const { frame } = context;
  return {
    goal: frame.goal,
    ancestors: context.ancestors.length === 0 ? '(none: this is the whole task)' : context.ancestors.map((a, i) => `${i + 1}. ${a.goal}`).join('\n'),
    todo: frame.todo || '(no plan)',
    done: frame.done.length === 0 ? '(nothing yet)' : frame.done.map((d, i) => `${i + 1}. ${d}`).join('\n'),
    tools: Object.keys(tools).length === 0 ? '(none)' : Object.entries(tools).map(([name, t]) => `- ${name}${t.description ? `: ${t.description}` : ''}`).join('\n'),
    toolResults: frame.toolCalls.length === 0 ? '(none)' : frame.toolCalls.map((c) => `- ${c.tool}(${JSON.stringify(c.input)}) → ${c.error ? `error: ${c.error}` : JSON.stringify(c.output)}`).join('\n'),
  };
}

/** Think on a model: a reply may call a tool (think is then asked again, with the result). */
export function llmThink(model: LanguageModel, tools: Record<string, FractalTool>, prompt: PromptTemplate, maxRepairs: number, maxToolCalls: number): ThinkFunction {
  return async (context) => {
    for (let round = 0; ; round++) {
      const { value } = await generateChecked(model, {
        prompt: renderPrompt(prompt, variables(context, tools)),
        schema: thinkSchema,
        format: 'json',
        useResponseFormat: true,
        maxRepairs,
        temperature: 0.3,
        tags: frameTags('think', context),
        ...(context.signal ? { signal: context.signal } : {}),
      });
      if (value.type !== 'TOOL') return value;
      if (round >= maxToolCalls) throw new TotError('INVALID_FORMAT', `think asked for more than ${maxToolCalls} tool calls in one frame`, { details: { frameId: context.frame.id } });
      await context.callTool(value.tool, value.input).catch(() => undefined);
    }
  };
}

/** Eval on a model. */
export function llmEval(model: LanguageModel, prompt: PromptTemplate, maxRepairs: number): EvalFunction {
  return async (context) => {
    const { value } = await generateChecked(model, {
      prompt: renderPrompt(prompt, variables(context, {})),
      schema: evalSchema,
      format: 'json',
      useResponseFormat: true,
      maxRepairs,
      temperature: 0,
      tags: frameTags('eval', context),
      ...(context.signal ? { signal: context.signal } : {}),
    });
    return value;
  };
}
