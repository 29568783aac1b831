export { critic, CRITIC_SYSTEM, criticReplySchema } from './critic.js';
export { planner, PLANNER_SYSTEM, plannerReplySchema } from './planner.js';
export type { RoleAgentOptions } from './role-agent.js';
export { reporter, REPORTER_SYSTEM, reporterReplySchema, type ReporterOptions } from './reporter.js';
