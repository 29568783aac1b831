import type { DeliberationAgent } from '../participant.js';
import { roleAgent, type RoleAgentOptions } from './role-agent.js';
import { criticReplySchema as wireCriticReplySchema } from './wire-schemas.js';

/**
 * The reply {@link CRITIC_SYSTEM} asks the critic for (snake_case, as models write it); the critic's
 * replies are read against it and repaired when they do not match. A custom system message must
 * still ask for it.
 *
 * @example
 * ```ts
 * import { criticReplySchema } from '@tot/core/deliberation';
 *
 * criticReplySchema.parse({ content: 'Too tight', position: { conclusion: 'Study 3 months', key_reasons: ['enough time'], confidence: 0.8 }, critique: { risks: [{ risk: 'burnout', severity: 'medium' }] } });
 * ```
 */
export const criticReplySchema = wireCriticReplySchema;

/**
 * The critic's system message: its task and the protocol's output format.
 *
 * @example
 * ```ts
 * import { critic, CRITIC_SYSTEM } from '@tot/core/deliberation';
 *
 * const agent = critic({ model, system: `${CRITIC_SYSTEM}\nBe strict about time estimates.` });
 * ```
 */
export const CRITIC_SYSTEM = `You are the critic of a team of agents. You find the risks, weak assumptions and gaps in the plans others propose, check whether they are feasible, realistic and complete, and suggest fixes.
Reply with one JSON object only, in this form:
{"content": "your critique in a few sentences, for the user",
 "position": {"conclusion": "one sentence", "key_reasons": ["reason", "..."], "assumptions": ["assumption", "..."], "confidence": 0.7},
 "critique": {"target_agent": "planner", "target_round": 1,
   "risks": [{"risk": "", "severity": "low|medium|high", "impact": ""}],
   "suggestions": [{"issue": "", "solution": "", "priority": "low|medium|high"}],
   "validity_check": {"feasible": true, "realistic": true, "complete": false}}}`;

/**
 * The protocol's critic: risks, suggestions and a validity check of the others'
 * plans, with its position summary; validated and repaired like the planner. In round 1 (when it
 * speaks in parallel) it critiques the request itself.
 *
 * @example
 * ```ts
 * import { critic } from '@tot/core/deliberation';
 *
 * const agent = critic({ model });
 * ```
 */
export function critic(options: RoleAgentOptions): DeliberationAgent {
  return roleAgent(options, {
    name: 'critic',
    system: CRITIC_SYSTEM,
    outputType: 'critique',
    schema: criticReplySchema,
    task: (ctx) => (ctx.round === 1 && ctx.current.length === 0 ? 'Name the risks and the checks any plan for this request must pass.' : 'Critique the latest plan.'),
  });
}
