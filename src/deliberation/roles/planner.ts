import { z } from 'zod';
import { parseOptions } from '../../internal/validate.js';
import { languageModelSchema } from '../../model/schemas.js';
import type { LanguageModel } from '../../model/types.js';
import { llmAgent } from '../llm-agent.js';
import type { DeliberationAgent } from '../participant.js';
import { debateTurn } from './debate-turn.js';
import { plannerReplySchema, readReply, toPosition } from './wire-schemas.js';

/**
 * Options of {@link planner} and {@link critic}.
 *
 * @example
 * ```ts
 * import type { RoleAgentOptions } from '@tot/core';
 *
 * const options: RoleAgentOptions = { model, id: 'planner', temperature: 0.3 };
 * ```
 */
export interface RoleAgentOptions {
  /** Its model. */
  model: LanguageModel;
  /** Its id. Default the role's name. */
  id?: string;
  /** Replaces the role's system message (keep the output format in it). */
  system?: string;
  /** Sampling temperature. Default: the model's. */
  temperature?: number;
  /** Repairs of a reply that is not the required JSON. Default 1. */
  maxRepairs?: number;
}

export const roleOptionsSchema = z.strictObject({
  model: languageModelSchema,
  id: z.string().optional(),
  system: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxRepairs: z.number().int().min(0).max(5).default(1),
});

/**
 * The planner's system message: its task and the seed's output format (seed 001 §2.2). Extend it
 * rather than replace it, or keep the format in yours.
 *
 * @example
 * ```ts
 * import { planner, PLANNER_SYSTEM } from '@tot/core';
 *
 * const agent = planner({ model, system: `${PLANNER_SYSTEM}\nPlan in weeks, never in days.` });
 * ```
 */
export const PLANNER_SYSTEM = `You are the planner of a team of agents. You turn the user's goal into a structured plan, with tasks, time estimates and deadlines, and you revise it when others point out problems.
Reply with one JSON object only, in this form:
{"content": "your plan in a few sentences, for the user",
 "position": {"conclusion": "one sentence", "key_reasons": ["reason", "..."], "assumptions": ["assumption", "..."], "confidence": 0.8},
 "plan": {"title": "", "goal": "", "phases": [{"phase_name": "", "duration": "", "tasks": [{"title": "", "estimated_hours": 10, "deadline": "YYYY-MM-DD", "tags": [""]}]}], "total_estimated_hours": 0}}`;

/**
 * The seed's planner (seed 001 §1.2, §2.2): turns the goal into a structured plan, with its
 * position summary; the reply is validated (zod) and repaired when it is not the format. Its
 * conversation carries across rounds; later rounds show it the others' positions and the host's
 * constraints.
 *
 * @example
 * ```ts
 * import { planner } from '@tot/core';
 *
 * const agent = planner({ model, temperature: 0.3 });
 * ```
 */
export function planner(options: RoleAgentOptions): DeliberationAgent {
  const o = parseOptions(roleOptionsSchema, options, 'planner');
  return llmAgent({
    id: o.id ?? 'planner',
    model: o.model,
    system: o.system ?? PLANNER_SYSTEM,
    json: true,
    outputType: 'plan',
    maxRepairs: o.maxRepairs,
    ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
    turn: (ctx) => debateTurn(ctx, ctx.round === 1 ? 'Write your plan.' : 'Revise your plan: keep what holds, change what the others showed is wrong.'),
    parse: (text) => {
      const r = readReply(text, plannerReplySchema);
      const { content, position, ...rest } = r;
      return { content, outputType: 'plan', position: toPosition(position), metadata: rest };
    },
  });
}
