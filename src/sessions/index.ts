/**
 * `@tot/core/sessions`: agent sessions. {@link SessionEngine} runs sessions whose every change is an
 * event in a store, with branches, budgets, scored and validated plans, and parallel rounds.
 *
 * @packageDocumentation
 */
export { BRANCH_TRANSITIONS, branchTriggers, transitionBranch, type BranchState, type BranchTrigger } from './branch-state.js';
export { classifyFailure, FAILURE_RULES, type ClassifyFailureOptions, type FailureCategory, type FailureRule } from './failure-category.js';
export { failureSignature, type FailureInput } from './failure-signature.js';
export { HEALING_STRATEGIES, HealingEngine, type HealingEngineOptions, type HealingStrategy } from './healing-engine.js';
export { FailureDeduplicator, NON_RETRYABLE_FAILURES, type RetryVerdict } from './failure-deduplicator.js';
export { budgetStop, calculateReward, convergenceStop, DEFAULT_REWARD_WEIGHTS, qualityStop, type BranchScore, type RewardWeights } from './reward.js';
export {
  assessPlan,
  CompletenessChecker,
  DocPlan,
  ExecutionPlan,
  RiskScorer,
  ROLLBACK_STRATEGIES,
  type AssessPlanOptions,
  type CompletenessReport,
  type DocPlanValue,
  type ExecutionPlanValue,
  type PlanAssessment,
  type RiskReport,
} from './plans.js';
export { FINAL_SESSION_STATES, type SessionState } from './session-state.js';
export type { SessionEventData, SessionBudget, ThoughtEdge, ThoughtRole } from './session-events.js';
export type { SessionBranch, SessionEvidence, SessionThought, SessionSnapshot } from './session-model.js';
export { AgentSession, type AddThoughtOptions, type ExportPlanOptions } from './agent-session.js';
export type { PlanApproval } from './plan-approval.js';
export { SessionEngine, type SessionEngineOptions, type StartSessionOptions } from './session-engine.js';
export type { ParallelEvent } from './parallel-events.js';
export { branchPlannerReplySchema, DEFAULT_BRANCH_PROMPT, DEFAULT_CRITIC_PROMPT, llmBranchWorker, type BranchRoundOutcome, type BranchWorker, type BranchWorkerContext } from './branch-worker.js';
export type { BranchOutcome, ParallelResult, ParallelStopReason, ParallelStrategy, RunParallelOptions } from './parallel.js';
export { redact, type DigestOptions, type EvidenceStep, type SessionMetrics } from './session-report.js';
export { GotEngine, GotSession, type GotBranch, type GotEngineOptions, type GotEventData, type GotEvidence, type GotThought } from './deprecated-names.js';
