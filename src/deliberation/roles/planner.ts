import type { DeliberationAgent } from '../participant.js';
import { roleAgent, type RoleAgentOptions } from './role-agent.js';
import { plannerReplySchema as wirePlannerReplySchema } from './wire-schemas.js';

/**
 * The reply {@link PLANNER_SYSTEM} asks the planner for (snake_case, as models write it); the planner's
 * replies are read against it and repaired when they do not match. A custom system message must
 * still ask for it.
 *
 * @example
 * ```ts
 * import { plannerReplySchema } from '@tot/core/deliberation';
 *
 * plannerReplySchema.parse({ content: 'A 12-week plan', position: { conclusion: 'Study 3 months', key_reasons: ['enough time'], confidence: 0.8 }, plan: { title: 'IELTS', phases: [{ phase_name: 'Basics' }] } });
 * ```
 */
export const plannerReplySchema = wirePlannerReplySchema;

/**
 * The planner's system message: its task and the protocol's output format. Extend it
 * rather than replace it, or keep the format in yours.
 *
 * @example
 * ```ts
 * import { planner, PLANNER_SYSTEM } from '@tot/core/deliberation';
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
 * The protocol's planner: turns the goal into a structured plan, with its
 * position summary; the reply is validated (zod) and repaired when it is not the format. Its
 * conversation carries across rounds; later rounds show it the others' positions and the host's
 * constraints.
 *
 * @example
 * ```ts
 * import { planner } from '@tot/core/deliberation';
 *
 * const agent = planner({ model, temperature: 0.3 });
 * ```
 */
export function planner(options: RoleAgentOptions): DeliberationAgent {
  return roleAgent(options, {
    name: 'planner',
    system: PLANNER_SYSTEM,
    outputType: 'plan',
    schema: plannerReplySchema,
    task: (ctx) => (ctx.round === 1 ? 'Write your plan.' : 'Revise your plan: keep what holds, change what the others showed is wrong.'),
  });
}
