import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { fnSchema, parseOptions } from '../../internal/validate.js';
import { languageModelSchema } from '../../model/schemas.js';
import type { ChatMessage, LanguageModel } from '../../model/types.js';
import { promptTemplateSchema, renderPrompt, type PromptTemplate } from '../../roles/prompt-template.js';
import type { RunBudget } from '../../run/run-options.js';
import { Deliberation } from '../deliberation.js';
import { llmAgent } from '../llm-agent.js';
import { llmHost, type ModeratorVerdict } from '../llm-host.js';
import type { AgentContext, AgentReply, DeliberationReporter, HostContext, ReporterContext } from '../participant.js';
import { parseLooseObject } from '../python-literal.js';
import { conversation, type AgentOutput, type Exchange } from '../types.js';

/**
 * The prompts of {@link madDebate}, as templates. Placeholders: `{{topic}}` everywhere;
 * `{{affirmative}}` / `{{negative}}` (the sides' arguments), `{{opponent}}` (the other side's last
 * argument), `{{round}}` (an ordinal word: first, second…) and `{{roundNumber}}`.
 *
 * @example
 * ```ts
 * import type { MadPrompts } from '@tot/core/deliberation';
 *
 * const prompts: Partial<MadPrompts> = { rebuttal: '{{opponent}}\n\nDo you agree? Give your reasons.' };
 * ```
 */
export interface MadPrompts {
  /** Both debaters' system message. */
  debaterSystem: PromptTemplate;
  /** The affirmative's user turns of round 1, in order; its reply to the last is its argument. */
  affirmativeOpening: PromptTemplate[];
  /** The negative's turn of round 1 (`{{affirmative}}`). */
  negativeOpening: PromptTemplate;
  /** Each side's turn in later rounds (`{{opponent}}`). */
  rebuttal: PromptTemplate;
  /** The moderator's system message. */
  moderatorSystem: PromptTemplate;
  /** The moderator's turn after each round (`{{round}}`, `{{roundNumber}}`, `{{affirmative}}`, `{{negative}}`). */
  moderatorTurn: PromptTemplate;
  /** The judge's system message. Default: the moderator's. */
  judgeSystem?: PromptTemplate;
  /** The judge's first step: list the candidates (`{{affirmative}}`, `{{negative}}`: the round-1 arguments). */
  judgeCandidates: PromptTemplate;
  /** The judge's second step: decide. */
  judgeDecision: PromptTemplate;
}

/**
 * The library's own prompts for {@link madDebate}: a debate on any question.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAD_PROMPTS, madDebate } from '@tot/core/deliberation';
 *
 * const debate = madDebate({ model, prompts: { affirmativeOpening: [...DEFAULT_MAD_PROMPTS.affirmativeOpening, 'Now restate it in one sentence.'] } });
 * ```
 */
export const DEFAULT_MAD_PROMPTS: MadPrompts = Object.freeze({
  debaterSystem: 'You take part in a debate. You need not agree with the other side: the aim is to find the correct answer.\nThe question of the debate: {{topic}}',
  affirmativeOpening: ['Give your answer to the question, with your reasons.'],
  negativeOpening: '{{affirmative}}\n\nYou disagree with this answer. Give your own answer and your reasons.',
  rebuttal: '{{opponent}}\n\nDo you agree with this? Give your reasons.',
  moderatorSystem: 'You moderate a debate between two sides on this question: {{topic}}\nAfter each round you judge whether one answer is clearly better.',
  moderatorTurn:
    'The {{round}} round of the debate has ended.\n\nAffirmative side:\n{{affirmative}}\n\nNegative side:\n{{negative}}\n\nIs one side clearly right? Reply with a JSON object only: {"Whether there is a preference": "Yes or No", "Supported Side": "Affirmative or Negative", "Reason": "", "Answer": ""}',
  judgeCandidates: 'Affirmative side:\n{{affirmative}}\n\nNegative side:\n{{negative}}\n\nWhat answers have been proposed? List them without reasons.',
  judgeDecision: 'Which answer to "{{topic}}" is correct? Summarise your reasons and give the final answer as a JSON object only: {"Reason": "", "Answer": ""}',
}) as MadPrompts;

/**
 * Options of {@link madDebate}.
 *
 * @example
 * ```ts
 * import type { MadDebateOptions } from '@tot/core/deliberation';
 *
 * const options: MadDebateOptions = { model, maxRounds: 4, budget: { maxCalls: 20 } };
 * ```
 */
export interface MadDebateOptions {
  /** The model of every participant (or give `models`). */
  model: LanguageModel;
  /** A model per participant, overriding `model`. */
  models?: Partial<Record<'affirmative' | 'negative' | 'moderator' | 'judge', LanguageModel>>;
  /** Prompts replacing the defaults, one by one. */
  prompts?: Partial<MadPrompts>;
  /** Rounds before the judge decides. Default 3. */
  maxRounds?: number;
  /** Sampling temperature of every call. Default: the model's. */
  temperature?: number;
  /** Limits on the debate's model calls. */
  budget?: RunBudget;
  /** Per-participant time limit, in milliseconds. Default 60,000. */
  agentTimeoutMs?: number;
  /** Per-output token cap. Default 2,000. */
  maxOutputTokens?: number;
  /** Wall time of the debate, in milliseconds. */
  timeoutMs?: number;
  /** Reject at the first error. Default false. */
  strict?: boolean;
  /** Ordinal words for `{{round}}`. Default: first, second, … tenth, then `round N`. */
  ordinal?: (round: number) => string;
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

const optionsSchema = z.strictObject({
  model: languageModelSchema,
  models: z.strictObject({ affirmative: languageModelSchema.optional(), negative: languageModelSchema.optional(), moderator: languageModelSchema.optional(), judge: languageModelSchema.optional() }).optional(),
  prompts: z
    .strictObject({
      debaterSystem: promptTemplateSchema.optional(),
      affirmativeOpening: z.array(promptTemplateSchema).min(1).optional(),
      negativeOpening: promptTemplateSchema.optional(),
      rebuttal: promptTemplateSchema.optional(),
      moderatorSystem: promptTemplateSchema.optional(),
      moderatorTurn: promptTemplateSchema.optional(),
      judgeSystem: promptTemplateSchema.optional(),
      judgeCandidates: promptTemplateSchema.optional(),
      judgeDecision: promptTemplateSchema.optional(),
    })
    .optional(),
  maxRounds: z.number().int().min(1).max(50).default(3),
  temperature: z.number().min(0).max(2).optional(),
  budget: z.unknown().optional(),
  agentTimeoutMs: z.number().positive().optional(),
  maxOutputTokens: z.number().int().min(1).optional(),
  timeoutMs: z.number().positive().optional(),
  strict: z.boolean().optional(),
  ordinal: fnSchema<(round: number) => string>().optional(),
});

/** The value of the first key `pattern` matches. */
const field = (o: Record<string, unknown>, pattern: RegExp): unknown => {
  const key = Object.keys(o).find((k) => pattern.test(k));
  return key === undefined ? undefined : o[key];
};
const text = (v: unknown) => (typeof v === 'string' ? v.trim() : v === undefined || v === null ? '' : String(v));

/**
 * Reads a MAD moderator's verdict: a JSON object or a Python-dict literal (the form GPT models
 * reply in, escapes and all) with a preference (`yes`/`no`), the supported side, a reason and the
 * answer. Keys are matched by meaning (`…preference…`, `…side…`, `…reason…`, the answer under
 * `…answer…` or `…translation…`), so prompts may name them as they like.
 *
 * @example
 * ```ts
 * import { parseMadVerdict } from '@tot/core/deliberation';
 *
 * parseMadVerdict("{'Whether there is a preference': 'Yes', 'Supported Side': 'Negative', 'Reason': '…', 'Correct Translation': 'A watched pot never boils.'}");
 * // { preference: true, side: 'Negative', reason: '…', answer: 'A watched pot never boils.' }
 * ```
 */
export function parseMadVerdict(reply: string): { preference: boolean; side: string; reason: string; answer: string } {
  const o = parseLooseObject(reply);
  const preference = text(field(o, /preference/i)).toLowerCase();
  return {
    preference: preference.startsWith('yes') || preference === 'true',
    side: text(field(o, /side/i)),
    reason: text(field(o, /reason/i)),
    answer: text(field(o, /answer|translation|solution|result/i)),
  };
}

/**
 * Multi-Agent Debate (Liang et al., "Encouraging Divergent Thinking in Large Language Models
 * through Multi-Agent Debate"): an affirmative and a negative side argue in turn, each with its
 * own conversation; after every round a moderator (a model host) judges whether one side is
 * clearly right and, if so, ends the debate with its answer; after the last round a judge decides
 * in two steps (list the candidates from the round-1 arguments, then choose). The prompts are
 * options; the defaults are the library's own. The answer is `finalReport.content`.
 *
 * @example
 * ```ts
 * import { madDebate } from '@tot/core/deliberation';
 *
 * const debate = madDebate({ model, maxRounds: 3 });
 * const r = await debate.run('Translate into English: 心急吃不了热豆腐。');
 * console.log(r.stopReason, r.rounds.length, r.finalReport?.content);
 * ```
 */
export function madDebate(options: MadDebateOptions): Deliberation {
  const o = parseOptions(optionsSchema, options, 'madDebate');
  const p = { ...DEFAULT_MAD_PROMPTS, ...(o.prompts as Partial<MadPrompts> | undefined) } as MadPrompts;
  const ordinal = (o.ordinal as MadDebateOptions['ordinal']) ?? ((n: number) => ORDINALS[n - 1] ?? `round ${n}`);
  const modelOf = (who: 'affirmative' | 'negative' | 'moderator' | 'judge') => o.models?.[who] ?? o.model;
  const t = o.temperature === undefined ? {} : { temperature: o.temperature };
  const vars = (ctx: { query: string }, extra: Record<string, string> = {}) => ({ topic: ctx.query, ...extra });
  const outputOf = (outputs: readonly AgentOutput[], id: string) => outputs.find((x) => x.agentId === id)?.content ?? '';
  const lastOf = (ctx: AgentContext, id: string): string => {
    const now = ctx.current.find((x) => x.agentId === id);
    if (now) return now.content;
    for (let i = ctx.history.length - 1; i >= 0; i--) {
      const found = ctx.history[i]!.outputs.find((x) => x.agentId === id);
      if (found) return found.content;
    }
    return '';
  };

  const affirmative = llmAgent({
    id: 'affirmative',
    model: modelOf('affirmative'),
    system: (ctx) => renderPrompt(p.debaterSystem, vars(ctx)),
    turn: (ctx) => (ctx.round === 1 ? p.affirmativeOpening.map((turn) => renderPrompt(turn, vars(ctx))) : renderPrompt(p.rebuttal, vars(ctx, { opponent: lastOf(ctx, 'negative') }))),
    maxRepairs: 0,
    maxToolCalls: 0,
    ...t,
  });
  const negative = llmAgent({
    id: 'negative',
    model: modelOf('negative'),
    system: (ctx) => renderPrompt(p.debaterSystem, vars(ctx)),
    turn: (ctx) =>
      ctx.round === 1 ? renderPrompt(p.negativeOpening, vars(ctx, { affirmative: lastOf(ctx, 'affirmative') })) : renderPrompt(p.rebuttal, vars(ctx, { opponent: lastOf(ctx, 'affirmative') })),
    maxRepairs: 0,
    maxToolCalls: 0,
    ...t,
  });
  const moderator = llmHost({
    id: 'moderator',
    model: modelOf('moderator'),
    system: (ctx) => renderPrompt(p.moderatorSystem, vars(ctx)),
    turn: (ctx: HostContext) =>
      renderPrompt(p.moderatorTurn, vars(ctx, { round: ordinal(ctx.round), roundNumber: String(ctx.round), affirmative: outputOf(ctx.outputs, 'affirmative'), negative: outputOf(ctx.outputs, 'negative') })),
    parse: (reply): ModeratorVerdict => {
      const v = parseMadVerdict(reply);
      if (v.preference && v.answer === '') throw new TotError('INVALID_FORMAT', 'the moderator states a preference but gives no answer.');
      return v.preference
        ? { action: 'converge', reason: v.reason || `the moderator supports the ${v.side || 'one'} side`, answer: v.answer, metadata: { supported_side: v.side } }
        : { action: 'continue', reason: v.reason || 'no clear preference yet', nextAgents: ['affirmative', 'negative'], metadata: v.answer === '' ? {} : { candidate: v.answer } };
    },
    maxRepairs: 0,
    ...t,
  });

  const judge: DeliberationReporter = {
    id: 'judge',
    async report(ctx: ReporterContext): Promise<AgentReply> {
      const d = ctx.decision;
      if (d?.action === 'converge' && d.answer !== undefined) {
        return { content: d.answer, outputType: 'report', metadata: { decided_by: 'moderator', reason: d.reason, ...(d.metadata ?? {}) } };
      }
      const first = ctx.history[0]?.outputs ?? [];
      const system = renderPrompt(p.judgeSystem ?? p.moderatorSystem, vars(ctx));
      const made: Exchange[] = [];
      const ask = async (user: string): Promise<string> => {
        const messages: ChatMessage[] = [...conversation(system, made), { role: 'user', content: user }];
        const result = await ctx.generate(modelOf('judge'), { messages, maxOutputTokens: ctx.maxOutputTokens, ...t, tags: { role: 'judge', agent: 'judge', round: String(ctx.round) } });
        const reply = result.outputs[0] ?? '';
        made.push({ user, assistant: reply });
        return reply;
      };
      await ask(renderPrompt(p.judgeCandidates, vars(ctx, { affirmative: outputOf(first, 'affirmative'), negative: outputOf(first, 'negative') })));
      const v = parseMadVerdict(await ask(renderPrompt(p.judgeDecision, vars(ctx))));
      if (v.answer === '') throw new TotError('INVALID_FORMAT', 'the judge gave no answer.');
      return { content: v.answer, outputType: 'report', metadata: { decided_by: 'judge', reason: v.reason }, transcript: made };
    },
  };

  return new Deliberation({
    agents: [affirmative, negative],
    host: moderator,
    reporter: judge,
    maxRounds: o.maxRounds,
    parallelFirstRound: false,
    ...(o.budget === undefined ? {} : { budget: o.budget as RunBudget }),
    ...(o.agentTimeoutMs === undefined ? {} : { agentTimeoutMs: o.agentTimeoutMs }),
    ...(o.maxOutputTokens === undefined ? {} : { maxOutputTokens: o.maxOutputTokens }),
    ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
    ...(o.strict === undefined ? {} : { strict: o.strict }),
  });
}
