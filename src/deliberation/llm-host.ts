import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import { renderPrompt } from '../roles/prompt-template.js';
import { repairTurn } from './llm-agent.js';
import type { DeliberationHost, HostContext } from './participant.js';
import { parseLooseObject } from './python-literal.js';
import { conversation, type Exchange, type HostAction, type HostDecision } from './types.js';

/**
 * What a moderator's parse returns: the decision without the parts the host fills in (its
 * memory, and defaults: every agent next, no constraints, no directives).
 *
 * @example
 * ```ts
 * import type { ModeratorVerdict } from '@tot/core/deliberation';
 *
 * const v: ModeratorVerdict = { action: 'converge', reason: 'the negative side is right', answer: 'A watched pot never boils.' };
 * ```
 */
export type ModeratorVerdict = Pick<HostDecision, 'action' | 'reason'> & Partial<Omit<HostDecision, 'action' | 'reason' | 'transcript'>>;

/**
 * Options of {@link llmHost}.
 *
 * @example
 * ```ts
 * import type { LlmHostOptions } from '@tot/core/deliberation';
 *
 * const options: LlmHostOptions = { model, system: 'You moderate a debate.', turn: (ctx) => ctx.outputs.map((o) => `${o.agentId}: ${o.content}`).join('\n\n') };
 * ```
 */
export interface LlmHostOptions {
  /** Its id in events. Default `'host'`. */
  id?: string;
  /** Its model. */
  model: LanguageModel;
  /** Its system message: a template (`{{query}}`) or a function of the context. Default none. */
  system?: string | ((ctx: HostContext) => string);
  /** Its user turn after a round (it keeps its own conversation across rounds). */
  turn: (ctx: HostContext) => string;
  /**
   * Reads the reply. Default {@link parseHostReply}: a JSON object or a Python-dict literal with
   * the protocol's fields (`action`, `reason`, `next_agents`, `constraints`, `answer`). A throw asks
   * for a repair (`maxRepairs`), then fails the round's decision.
   */
  parse?: (text: string, ctx: HostContext) => ModeratorVerdict | Promise<ModeratorVerdict>;
  /** Sampling temperature. Default: the model's. */
  temperature?: number;
  /** Repairs of a reply `parse` refused. Default 1. */
  maxRepairs?: number;
}

const optionsSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z][\w-]{0,63}$/).default('host'),
  model: languageModelSchema,
  system: z.union([z.string(), fnSchema<(ctx: HostContext) => string>()]).optional(),
  turn: fnSchema<(ctx: HostContext) => string>(),
  parse: fnSchema<(text: string, ctx: HostContext) => ModeratorVerdict | Promise<ModeratorVerdict>>().optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxRepairs: z.number().int().min(0).max(5).default(1),
});

const ACTIONS: readonly HostAction[] = ['continue', 'converge', 'force_opposition', 'terminate', 'update_command'];
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * Reads a moderator's reply in the protocol's host format, as JSON or as the
 * Python-dict literal models often write: `action` (or `decision.action`), `reason`,
 * `next_agents`, `constraints.must_address` / `avoid`, and an `answer` when it ends the debate.
 *
 * @example
 * ```ts
 * import { parseHostReply } from '@tot/core/deliberation';
 *
 * parseHostReply("{'action': 'continue', 'reason': 'no agreement yet', 'next_agents': ['critic']}");
 * // { action: 'continue', reason: 'no agreement yet', nextAgents: ['critic'], constraints: { mustAddress: [], avoid: [] } }
 * ```
 */
export function parseHostReply(text: string): ModeratorVerdict {
  const raw = parseLooseObject(text);
  const d = (typeof raw.decision === 'object' && raw.decision !== null ? { ...raw, ...(raw.decision as Record<string, unknown>) } : raw) as Record<string, unknown>;
  const action = d.action;
  if (typeof action !== 'string' || !ACTIONS.includes(action as HostAction)) {
    throw new TotError('INVALID_FORMAT', `the reply's "action" must be one of ${ACTIONS.join(', ')}; it was ${JSON.stringify(action)}.`);
  }
  const constraints = (typeof d.constraints === 'object' && d.constraints !== null ? d.constraints : {}) as Record<string, unknown>;
  return {
    action: action as HostAction,
    reason: typeof d.reason === 'string' ? d.reason : '',
    ...(d.next_agents !== undefined ? { nextAgents: strings(d.next_agents) } : {}),
    constraints: { mustAddress: strings(constraints.must_address), avoid: strings(constraints.avoid) },
    ...(typeof d.answer === 'string' && d.answer !== '' ? { answer: d.answer } : {}),
  };
}

/**
 * A host backed by a model: a moderator with its own conversation across rounds (its system
 * message, then each round's turn and its reply), whose reply `parse` turns into the decision.
 * Next agents default to every agent; a `converge` or `terminate` ends the rounds.
 *
 * @example
 * ```ts
 * import { llmHost } from '@tot/core/deliberation';
 *
 * const moderator = llmHost({
 *   model,
 *   system: 'You moderate. Reply as JSON: {"action": "continue" | "converge", "reason": "", "answer": ""}.',
 *   turn: (ctx) => ctx.outputs.map((o) => `${o.agentId}: ${o.content}`).join('\n\n'),
 * });
 * ```
 */
export function llmHost(options: LlmHostOptions): DeliberationHost {
  const o = parseOptions(optionsSchema, options, 'llmHost');
  const system = o.system as LlmHostOptions['system'];
  const parse = (o.parse as LlmHostOptions['parse']) ?? ((text: string) => parseHostReply(text));
  return Object.freeze({
    id: o.id,
    async decide(ctx: HostContext, { signal }: { signal: AbortSignal }): Promise<HostDecision> {
      const sys = system === undefined ? undefined : typeof system === 'function' ? system(ctx) : renderPrompt(system, { query: ctx.query });
      const made: Exchange[] = [];
      const ask = async (user: string): Promise<string> => {
        const messages = conversation(sys, [...ctx.exchanges, ...made]);
        messages.push({ role: 'user', content: user });
        const result = await ctx.generate(o.model, {
          messages,
          maxOutputTokens: ctx.maxOutputTokens,
          ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
          tags: { agent: o.id, round: String(ctx.round) },
        });
        const text = result.outputs[0] ?? '';
        made.push({ user, assistant: text });
        return text;
      };
      let reply = await ask(o.turn(ctx));
      for (let repairs = 0; ; repairs++) {
        try {
          const v = await parse(reply, ctx);
          const ends = v.action === 'converge' || v.action === 'terminate';
          return {
            action: v.action,
            reason: v.reason,
            nextAgents: v.nextAgents ?? (ends ? [] : [...ctx.agents]),
            constraints: v.constraints ?? { mustAddress: [], avoid: [] },
            directives: v.directives ?? [],
            ...(v.analysis ? { analysis: v.analysis } : {}),
            ...(v.plateau ? { plateau: v.plateau } : {}),
            ...(v.answer === undefined ? {} : { answer: v.answer }),
            ...(v.metadata ? { metadata: v.metadata } : {}),
            transcript: made,
          };
        } catch (error) {
          if (signal.aborted || repairs >= o.maxRepairs) {
            if (TotError.isInstance(error)) throw error;
            throw new TotError('INVALID_FORMAT', `Host "${o.id}": ${error instanceof Error ? error.message : String(error)}`, { cause: error });
          }
          reply = await ask(repairTurn(error));
        }
      }
    },
  });
}
