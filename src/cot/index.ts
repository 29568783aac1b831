/**
 * `@tot/core/cot`: chain of thought as a step-by-step run, with a plan that each thought updates.
 *
 * @packageDocumentation
 */
export { DEFAULT_FIRST_PLAN, formatPlan, MAX_PLAN_DEPTH, MAX_PLAN_STEPS, planSchema, type PlanStatus, type PlanStep } from './plan.js';
export {
  ChainOfThoughtNode,
  CHAIN_OF_THOUGHT_INSTRUCTIONS,
  chainOfThoughtReplySchema,
  DEFAULT_CHAIN_OF_THOUGHT_PROMPT,
  foldChainOfThoughtEvents,
  type ChainOfThoughtOptions,
  type ChainOfThoughtStats,
  type ChainOfThoughtStepOptions,
  type ChainOfThoughtPrep,
  type ChainOfThoughtResult,
  type ChainOfThoughtState,
  type ChainOfThoughtStopReason,
  type Thought,
} from './chain-of-thought-node.js';
export type { ChainOfThoughtEvent } from './cot-events.js';
