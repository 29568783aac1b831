import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { parseOptions } from '../../internal/validate.js';
import { languageModelSchema } from '../../model/schemas.js';
import type { ChatMessage, LanguageModel } from '../../model/types.js';
import { repairTurn } from '../llm-agent.js';
import type { AgentReply, DeliberationReporter, ReporterContext } from '../participant.js';
import type { AgentOutput } from '../types.js';
import { readReply, reportReplySchema as wireReporterReplySchema } from './wire-schemas.js';

/**
 * The reply {@link REPORTER_SYSTEM} asks the reporter for (snake_case, as models write it); the reporter's
 * replies are read against it and repaired when they do not match. A custom system message must
 * still ask for it.
 *
 * @example
 * ```ts
 * import { reporterReplySchema } from '@tot/core/deliberation';
 *
 * reporterReplySchema.parse({ content: '# Plan', final_plan: { title: 'IELTS in 12 weeks' }, summary: { key_agreements: ['weekly mocks'] } });
 * ```
 */
export const reporterReplySchema = wireReporterReplySchema;

/**
 * Options of {@link reporter}.
 *
 * @example
 * ```ts
 * import type { ReporterOptions } from '@tot/core/deliberation';
 *
 * const options: ReporterOptions = { model, temperature: 0 };
 * ```
 */
export interface ReporterOptions {
  /** Its model. */
  model: LanguageModel;
  /** Its id. Default `'reporter'`. */
  id?: string;
  /** Replaces the system message (keep the output format in it). */
  system?: string;
  /** Sampling temperature. Default: the model's. */
  temperature?: number;
  /** Repairs of a reply that is not the required JSON. Default 1. */
  maxRepairs?: number;
}

const optionsSchema = z.strictObject({
  model: languageModelSchema,
  id: z.string().regex(/^[A-Za-z][\w-]{0,63}$/).default('reporter'),
  system: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxRepairs: z.number().int().min(0).max(5).default(1),
});

/**
 * The reporter's system message and the protocol's report format.
 *
 * @example
 * ```ts
 * import { reporter, REPORTER_SYSTEM } from '@tot/core/deliberation';
 *
 * const r = reporter({ model, system: `${REPORTER_SYSTEM}\nWrite for a beginner.` });
 * ```
 */
export const REPORTER_SYSTEM = `You are the reporter of a team of agents. You turn the outcome of their discussion into a clear final plan for the user, in Markdown, and summarise what they agreed, which concerns were resolved and what remains uncertain.
Reply with one JSON object only, in this form:
{"content": "# Title\\n\\nthe final plan in Markdown, for the user",
 "final_plan": {"title": "", "goal": "", "consensus_level": "high|medium|low", "participating_agents": [""], "rounds": 1, "plan": {"phases": [], "total_estimated_hours": 0}},
 "summary": {"key_agreements": [""], "resolved_concerns": ["concern -> how it was resolved"], "remaining_uncertainties": [""]}}`;

const line = (o: AgentOutput) => `[${o.agentId}, round ${o.round}${o.stale ? ', not updated' : ''}] ${o.position ? `${o.position.conclusion}\nReasons: ${o.position.keyReasons.join('; ')}\n` : ''}${o.content}`;

/** The reporter's user turn: the last positions, and whether to write the consensus or the divergent conclusion. */
function reportTurn(ctx: ReporterContext): string {
  const last = ctx.history.at(-1);
  const positions = last ? last.outputs.map(line).join('\n\n') : '(no positions)';
  const plan = [...ctx.history].reverse().flatMap((r) => r.outputs).find((o) => o.metadata.plan !== undefined)?.metadata.plan;
  const how = ctx.divergent
    ? `The agents did not reach a consensus (${ctx.stopReason.replace(/_/g, ' ')}). Write the divergent conclusion: state each position, where they disagree, and what the user should weigh to decide.`
    : ctx.stopReason === 'plateau'
      ? `The agents' positions stopped moving after ${ctx.history.length} round(s)${ctx.decision ? ` (${ctx.decision.reason})` : ''}: they agree only in part. Write the plan they share, and name where they still differ.`
      : `The agents converged after ${ctx.history.length} round(s)${ctx.decision ? ` (${ctx.decision.reason})` : ''}. Write the agreed final plan.`;
  return `Request: ${ctx.query}\n\nFinal positions:\n\n${positions}${plan === undefined ? '' : `\n\nLatest plan (JSON):\n${JSON.stringify(plan)}`}\n\n${how}`;
}

/**
 * The protocol's reporter: the final plan in Markdown with its summary (key
 * agreements, resolved concerns, remaining uncertainties); after the round limit, the divergent
 * conclusion. Validated and repaired like the agents.
 *
 * @example
 * ```ts
 * import { Deliberation, reporter } from '@tot/core/deliberation';
 *
 * const d = new Deliberation({ agents, host, reporter: reporter({ model }) });
 * ```
 */
export function reporter(options: ReporterOptions): DeliberationReporter {
  const o = parseOptions(optionsSchema, options, 'reporter');
  return Object.freeze({
    id: o.id,
    async report(ctx: ReporterContext, { signal }: { signal: AbortSignal }): Promise<AgentReply> {
      const messages: ChatMessage[] = [
        { role: 'system', content: o.system ?? REPORTER_SYSTEM },
        { role: 'user', content: reportTurn(ctx) },
      ];
      for (let attempt = 0; ; attempt++) {
        const result = await ctx.generate(o.model, {
          // A copy per call: a request, once sent (and logged), is never changed.
          messages: [...messages],
          maxOutputTokens: ctx.maxOutputTokens,
          responseFormat: { type: 'json' },
          ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
          tags: { agent: o.id, round: String(ctx.round) },
        });
        const text = result.outputs[0] ?? '';
        try {
          const r = readReply(text, reporterReplySchema);
          const { content, ...metadata } = r;
          return { content, outputType: 'report', metadata: { ...metadata, divergent: ctx.divergent } };
        } catch (error) {
          if (signal.aborted || attempt >= o.maxRepairs) throw TotError.isInstance(error) ? error : new TotError('INVALID_FORMAT', String(error));
          messages.push({ role: 'assistant', content: text }, { role: 'user', content: repairTurn(error) });
        }
      }
    },
  });
}
