import { z } from 'zod';
import { fnSchema, parseOptions } from '../../internal/validate.js';
import { languageModelSchema } from '../../model/schemas.js';
import type { LanguageModel } from '../../model/types.js';
import { promptTemplateSchema, renderPrompt, type PromptTemplate } from '../../roles/prompt-template.js';
import type { RunBudget } from '../../run/run-options.js';
import { Deliberation } from '../deliberation.js';
import { llmAgent } from '../llm-agent.js';
import type { AgentReply, DeliberationHost, DeliberationReporter, ReporterContext } from '../participant.js';

/**
 * Options of {@link societyOfMind}.
 *
 * @example
 * ```ts
 * import type { SocietyOfMindOptions } from '@tot/core/deliberation';
 *
 * const options: SocietyOfMindOptions = { model, agents: 3, rounds: 2, answer: (t) => t.match(/\{(\d+)\}/)?.[1] };
 * ```
 */
export interface SocietyOfMindOptions {
  /** Every agent's model. */
  model: LanguageModel;
  /** How many agents. Default 3. */
  agents?: number;
  /** How many rounds. Default 2. */
  rounds?: number;
  /** Reads an agent's answer from its reply (`undefined` when it gave none): the votes. */
  answer: (reply: string) => string | undefined;
  /** The first round's turn (`{{query}}`). Default: the question. */
  question?: PromptTemplate;
  /** Later rounds' turn (`{{query}}`, `{{others}}`: the other agents' last replies). */
  debate?: PromptTemplate;
  /** Sampling temperature. Default: the model's. */
  temperature?: number;
  /** Limits on the run's model calls. */
  budget?: RunBudget;
  /** Per-agent time limit, in milliseconds. Default 60,000. */
  agentTimeoutMs?: number;
}

/**
 * The library's turns for {@link societyOfMind}: the question, then the others' answers.
 *
 * @example
 * ```ts
 * import { DEFAULT_SOCIETY_PROMPTS } from '@tot/core/deliberation';
 *
 * DEFAULT_SOCIETY_PROMPTS.debate; // "These are the other agents' latest answers…"
 * ```
 */
export const DEFAULT_SOCIETY_PROMPTS = Object.freeze({
  question: '{{query}}',
  debate: "These are the other agents' latest answers to the question:\n\n{{others}}\n\nUsing their reasoning as additional information, give your updated answer to the question: {{query}}",
});

const optionsSchema = z.strictObject({
  model: languageModelSchema,
  agents: z.number().int().min(1).max(50).default(3),
  rounds: z.number().int().min(1).max(50).default(2),
  answer: fnSchema<(reply: string) => string | undefined>(),
  question: promptTemplateSchema.default(DEFAULT_SOCIETY_PROMPTS.question),
  debate: promptTemplateSchema.default(DEFAULT_SOCIETY_PROMPTS.debate),
  temperature: z.number().min(0).max(2).optional(),
  budget: z.unknown().optional(),
  agentTimeoutMs: z.number().positive().optional(),
});

/**
 * The majority answer of `replies` (ties: the answer given first), with the votes.
 *
 * @example
 * ```ts
 * import { majorityVote } from '@tot/core/deliberation';
 *
 * majorityVote(['12', '15', '12']); // { answer: '12', votes: { '12': 2, '15': 1 } }
 * ```
 */
export function majorityVote(answers: readonly (string | undefined)[]): { answer: string | undefined; votes: Record<string, number> } {
  const votes: Record<string, number> = {};
  let best: string | undefined;
  for (const a of answers) {
    if (a === undefined) continue;
    votes[a] = (votes[a] ?? 0) + 1;
    if (best === undefined || votes[a]! > votes[best]!) best = a;
  }
  return { answer: best, votes };
}

/**
 * Society of Mind debate (Du et al., "Improving Factuality and Reasoning in Language Models
 * through Multiagent Debate"): `agents` agents answer at once, then for `rounds - 1` more rounds
 * each reads the others' last answers and answers again (in its own conversation); the answer
 * is the majority vote over the last round's parsed answers (`finalReport.content`, votes in its
 * metadata).
 *
 * @example
 * ```ts
 * import { societyOfMind } from '@tot/core/deliberation';
 *
 * const society = societyOfMind({ model, agents: 3, rounds: 2, answer: (t) => t.match(/answer is (\d+)/i)?.[1] });
 * const r = await society.run('What is 17 * 23? End with "the answer is N".');
 * console.log(r.finalReport?.content, r.finalReport?.metadata.votes);
 * ```
 */
export function societyOfMind(options: SocietyOfMindOptions): Deliberation {
  const o = parseOptions(optionsSchema, options, 'societyOfMind');
  const answer = o.answer as SocietyOfMindOptions['answer'];
  const ids = Array.from({ length: o.agents }, (_, i) => `agent-${i + 1}`);
  const agents = ids.map((id) =>
    llmAgent({
      id,
      model: o.model,
      maxToolCalls: 0,
      maxRepairs: 0,
      ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
      turn: (ctx) => {
        if (ctx.round === 1) return renderPrompt(o.question, { query: ctx.query });
        const others = (ctx.history.at(-1)?.outputs ?? []).filter((x) => x.agentId !== id).map((x) => `One agent's answer: \`\`\`${x.content}\`\`\``);
        return renderPrompt(o.debate, { query: ctx.query, others: others.join('\n\n') });
      },
      parse: (text) => {
        const a = answer(text);
        return { content: text, metadata: a === undefined ? {} : { answer: a } };
      },
    }),
  );
  // Fixed rounds, as in the paper: the host never stops early; the round limit ends the debate.
  const host: DeliberationHost = {
    id: 'rounds',
    decide: (ctx) => {
      const { answer: leading, votes } = majorityVote(ctx.outputs.map((x) => x.metadata.answer as string | undefined));
      return { action: 'continue', reason: `round ${ctx.round} of ${ctx.maxRounds}: leading answer ${leading ?? 'none'}`, nextAgents: [...ctx.agents], constraints: { mustAddress: [], avoid: [] }, directives: [], metadata: { votes } };
    },
  };
  const vote: DeliberationReporter = {
    id: 'vote',
    report: (ctx: ReporterContext): AgentReply => {
      const { answer: winner, votes } = majorityVote((ctx.history.at(-1)?.outputs ?? []).map((x) => x.metadata.answer as string | undefined));
      return { content: winner ?? '', outputType: 'report', metadata: { votes, answered: Object.values(votes).reduce((a, b) => a + b, 0) } };
    },
  };
  return new Deliberation({
    agents,
    host,
    reporter: vote,
    maxRounds: o.rounds,
    parallelFirstRound: true,
    parallelLaterRounds: true,
    ...(o.budget === undefined ? {} : { budget: o.budget as RunBudget }),
    ...(o.agentTimeoutMs === undefined ? {} : { agentTimeoutMs: o.agentTimeoutMs }),
  });
}
