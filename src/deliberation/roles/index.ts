export { critic, CRITIC_SYSTEM } from './critic.js';
export { planner, PLANNER_SYSTEM, type RoleAgentOptions } from './planner.js';
export { reporter, REPORTER_SYSTEM, type ReporterOptions } from './reporter.js';
