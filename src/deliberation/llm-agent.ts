import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { renderPrompt } from '../roles/prompt-template.js';
import type { AgentContext, AgentReply, DeliberationAgent } from './participant.js';
import { parseToolRequest, runToolCall, toolInstructions } from './tools/index.js';
import { conversation, type Exchange, type OutputType } from './types.js';

/**
 * Options of {@link llmAgent}.
 *
 * @example
 * ```ts
 * import type { LlmAgentOptions } from '@tot/core/deliberation';
 *
 * const options: LlmAgentOptions = { id: 'skeptic', model, system: 'You doubt every plan.', turn: (ctx) => `Round ${ctx.round}: ${ctx.query}` };
 * ```
 */
export interface LlmAgentOptions {
  /** The agent's id. */
  id: string;
  /** Its model. */
  model: LanguageModel;
  /** Its system message: a template (`{{query}}`, `{{agent}}`) or a function of the context. Default none. */
  system?: string | ((ctx: AgentContext) => string);
  /**
   * The user turn(s) of a round. Several turns are sent one after the other in the same
   * conversation; the reply to the last is the output.
   */
  turn: (ctx: AgentContext) => string | readonly string[];
  /**
   * Reads the reply into the output. A throw asks the model to repair its reply (`maxRepairs`
   * times), then fails the agent's turn with `INVALID_FORMAT`. Default: the reply is the content.
   */
  parse?: (text: string, ctx: AgentContext) => AgentReply | Promise<AgentReply>;
  /** The output type when `parse` does not set one. Default `'position'`. */
  outputType?: OutputType;
  /** Sampling temperature. Default: the model's. */
  temperature?: number;
  /** Ask for a JSON reply (`responseFormat: { type: 'json' }`). Default false. */
  json?: boolean;
  /** Repairs of a reply `parse` refused. Default 1. */
  maxRepairs?: number;
  /** Tool calls per turn when the deliberation offers tools; 0 never mentions them. Default 3. */
  maxToolCalls?: number;
}

const optionsSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z][\w-]{0,63}$/, 'an id is a letter, then letters, digits, _ or - (64 at most)'),
  model: languageModelSchema,
  system: z.union([z.string(), fnSchema<(ctx: AgentContext) => string>()]).optional(),
  turn: fnSchema<(ctx: AgentContext) => string | readonly string[]>(),
  parse: fnSchema<(text: string, ctx: AgentContext) => AgentReply | Promise<AgentReply>>().optional(),
  outputType: z.enum(['position', 'plan', 'critique', 'report', 'control']).default('position'),
  temperature: z.number().min(0).max(2).optional(),
  json: z.boolean().default(false),
  maxRepairs: z.number().int().min(0).max(5).default(1),
  maxToolCalls: z.number().int().min(0).max(10).default(3),
});

/** A repair turn: what was wrong with the reply, and what to send instead (agents, hosts and reporters alike). */
export function repairTurn(error: unknown): string {
  const why = error instanceof Error ? error.message : String(error);
  return `Your reply could not be used: ${why.slice(0, 500)}\nReply again, in the required format only.`;
}

/**
 * An agent backed by a model, with the debate papers' memory: its system message, then its own
 * user/assistant exchanges of every earlier round, then this round's turn. The memory is rebuilt
 * from the deliberation's record each round, so a resumed run continues each conversation
 * exactly. When the deliberation offers tools, a reply that is a tool request (`{"tool":
 * "get_now"}`) is answered with the tool's result and the model asked again.
 *
 * @example
 * ```ts
 * import { llmAgent } from '@tot/core/deliberation';
 *
 * const skeptic = llmAgent({
 *   id: 'skeptic',
 *   model,
 *   system: 'You find the weakest assumption of every plan.',
 *   turn: (ctx) => (ctx.round === 1 ? ctx.query : `The others said:\n${ctx.history.at(-1)!.outputs.map((o) => o.content).join('\n')}`),
 * });
 * ```
 */
export function llmAgent(options: LlmAgentOptions): DeliberationAgent {
  const o = parseOptions(optionsSchema, options, 'llmAgent');
  const model = o.model;
  const system = o.system as LlmAgentOptions['system'];
  const parse = o.parse as LlmAgentOptions['parse'];
  const systemFor = (ctx: AgentContext): string | undefined => {
    if (system === undefined) return undefined;
    const text = typeof system === 'function' ? system(ctx) : renderPrompt(system, { query: ctx.query, agent: ctx.agentId });
    const tools = o.maxToolCalls > 0 && ctx.tools.length > 0 ? toolInstructions(ctx.tools) : '';
    return tools === '' ? text : `${text}\n\n${tools}`;
  };
  return Object.freeze({
    id: o.id,
    async respond(ctx: AgentContext, { signal }: { signal: AbortSignal }): Promise<AgentReply> {
      const sys = systemFor(ctx);
      const made: Exchange[] = [];
      const ask = async (user: string): Promise<string> => {
        const messages = conversation(sys, [...ctx.exchanges, ...made]);
        messages.push({ role: 'user', content: user });
        const result = await ctx.generate(model, {
          messages,
          maxOutputTokens: ctx.maxOutputTokens,
          ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
          ...(o.json ? { responseFormat: { type: 'json' as const } } : {}),
          tags: { agent: ctx.agentId, round: String(ctx.round) },
        });
        const text = result.outputs[0] ?? '';
        made.push({ user, assistant: text });
        return text;
      };
      const answer = async (user: string): Promise<string> => {
        let reply = await ask(user);
        for (let calls = 0; o.maxToolCalls > 0 && ctx.tools.length > 0 && calls < o.maxToolCalls; calls++) {
          const request = parseToolRequest(reply);
          if (!request) break;
          // The seed's tool output (§3): { success, data } or { success: false, error }.
          const { tool: _tool, ...result } = await runToolCall(ctx.tools, request, { signal });
          reply = await ask(JSON.stringify(result));
        }
        return reply;
      };
      const turns = o.turn(ctx);
      const list = typeof turns === 'string' ? [turns] : [...turns];
      if (list.length === 0 || list.some((t) => typeof t !== 'string' || t === '')) {
        throw new TotError('INVALID_ARGUMENT', `llmAgent "${o.id}": turn() must return a non-empty string or a non-empty list of them.`, { details: { field: 'turn' } });
      }
      let reply = '';
      for (const user of list) reply = await answer(user);
      for (let repairs = 0; ; repairs++) {
        try {
          const parsed = parse ? await parse(reply, ctx) : { content: reply };
          return { outputType: o.outputType, ...parsed, transcript: made };
        } catch (error) {
          if (signal.aborted || repairs >= o.maxRepairs) {
            if (TotError.isInstance(error)) throw error;
            throw new TotError('INVALID_FORMAT', `Agent "${o.id}": ${error instanceof Error ? error.message : String(error)}`, { cause: error });
          }
          reply = await answer(repairTurn(error));
        }
      }
    },
  });
}
