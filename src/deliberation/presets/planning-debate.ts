import { z } from 'zod';
import { parseOptions } from '../../internal/validate.js';
import type { Embedder } from '../../model/embedder.js';
import { languageModelSchema } from '../../model/schemas.js';
import type { LanguageModel } from '../../model/types.js';
import type { RunBudget } from '../../run/run-options.js';
import { Deliberation } from '../deliberation.js';
import type { ContentFilter } from '../deliberation-program.js';
import { critic } from '../roles/critic.js';
import { planner } from '../roles/planner.js';
import { reporter } from '../roles/reporter.js';
import { similarityHost, type SimilarityHostOptions } from '../similarity-host.js';
import { agentTools } from '../tools/index.js';

/**
 * Options of {@link planningDebate}.
 *
 * @example
 * ```ts
 * import type { PlanningDebateOptions } from '@tot/core/deliberation';
 *
 * const options: PlanningDebateOptions = { model, embedder, maxRounds: 5, timeZone: 'Asia/Shanghai' };
 * ```
 */
export interface PlanningDebateOptions {
  /** The model of the planner, the critic and the reporter. */
  model: LanguageModel;
  /** Measures consensus; default none (the lexical measure). */
  embedder?: Embedder;
  /** The host's other settings (thresholds, stubbornness, plateau). */
  host?: Omit<SimilarityHostOptions, 'embedder'>;
  /** Round limit. Default 5. */
  maxRounds?: number;
  /** The time zone of `get_now`. Default the process's. */
  timeZone?: string;
  /** Clock of `get_now` and timestamps. Default `Date.now`. */
  now?: () => number;
  /** Checks every output. */
  contentFilter?: ContentFilter;
  /** Limits on the run's model calls. */
  budget?: RunBudget;
  /** Per-agent time limit, in milliseconds. Default 60,000. */
  agentTimeoutMs?: number;
  /** Per-output token cap. Default 2,000. */
  maxOutputTokens?: number;
}

const optionsSchema = z.strictObject({
  model: languageModelSchema,
  embedder: z.unknown().optional(),
  host: z.record(z.string(), z.unknown()).optional(),
  maxRounds: z.number().int().min(1).max(100).default(5),
  timeZone: z.string().optional(),
  now: z.unknown().optional(),
  contentFilter: z.unknown().optional(),
  budget: z.unknown().optional(),
  agentTimeoutMs: z.number().positive().optional(),
  maxOutputTokens: z.number().int().min(1).optional(),
});

/**
 * The multi-agent planning protocol as one call: a planner and a critic (round 1 at once), a similarity host with the
 * protocol's rules, a reporter, the `get_now` and `calculate_date` tools, at most 5 rounds.
 *
 * @example
 * ```ts
 * import { planningDebate, toSSE } from '@tot/core/deliberation';
 *
 * const d = planningDebate({ model, embedder });
 * const r = await d.run('Help me plan three months of IELTS preparation');
 * // or stream it: new Response(toSSE(d.stream('Help me plan…')), { headers: { 'content-type': 'text/event-stream' } })
 * ```
 */
export function planningDebate(options: PlanningDebateOptions): Deliberation {
  const o = parseOptions(optionsSchema, options, 'planningDebate');
  const model = o.model;
  const now = o.now as (() => number) | undefined;
  return new Deliberation({
    agents: [planner({ model }), critic({ model })],
    host: similarityHost({ ...(o.host as SimilarityHostOptions | undefined), ...(o.embedder ? { embedder: o.embedder as Embedder } : {}) }),
    reporter: reporter({ model }),
    maxRounds: o.maxRounds,
    tools: agentTools({ ...(o.timeZone ? { timeZone: o.timeZone } : {}), ...(now ? { now } : {}) }),
    ...(now ? { now } : {}),
    ...(o.contentFilter ? { contentFilter: o.contentFilter as ContentFilter } : {}),
    ...(o.budget === undefined ? {} : { budget: o.budget as RunBudget }),
    ...(o.agentTimeoutMs === undefined ? {} : { agentTimeoutMs: o.agentTimeoutMs }),
    ...(o.maxOutputTokens === undefined ? {} : { maxOutputTokens: o.maxOutputTokens }),
  });
}
