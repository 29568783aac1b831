export { critic, CRITIC_SYSTEM } from './critic.js';
export { planner, PLANNER_SYSTEM } from './planner.js';
export type { RoleAgentOptions } from './role-agent.js';
export { reporter, REPORTER_SYSTEM, type ReporterOptions } from './reporter.js';
