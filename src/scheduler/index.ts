export { UCBScheduler, type ArmStats, type UCBSchedulerOptions } from './ucb-scheduler.js';
