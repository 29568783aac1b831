import { z } from 'zod';
import type { BranchState, BranchTrigger } from './branch-state.js';
import type { BranchScore } from './reward.js';
import type { SessionState } from './session-state.js';

/**
 * The roles of a thought.
 *
 * @example
 * ```ts
 * import type { ThoughtRole } from '@tot/core/sessions';
 *
 * const role: ThoughtRole = 'critic';
 * ```
 */
export type ThoughtRole = 'planner' | 'critic' | 'tester' | 'decider';

/**
 * How a thought relates to its parents (the edge types).
 *
 * @example
 * ```ts
 * import type { ThoughtEdge } from '@tot/core/sessions';
 *
 * const edge: ThoughtEdge = 'contradicts';
 * ```
 */
export type ThoughtEdge = 'causes' | 'refines' | 'contradicts' | 'supports';

/**
 * A session's budget: tokens, wall time from its start, and branches.
 *
 * @example
 * ```ts
 * import type { SessionBudget } from '@tot/core/sessions';
 *
 * const budget: SessionBudget = { maxTokens: 5000, maxMs: 600_000, maxBranches: 5 };
 * ```
 */
export interface SessionBudget {
  maxTokens?: number;
  maxMs?: number;
  maxBranches?: number;
}

/**
 * The events of an agent session's stream (its id is the stream's id). Every change is one of them;
 * folding them rebuilds the session.
 *
 * @example
 * ```ts
 * import type { SessionEventData } from '@tot/core/sessions';
 *
 * const line = (e: SessionEventData) => (e.type === 'thought.added' ? `${e.thoughtId} ${e.role}: ${e.content}` : e.type);
 * ```
 */
export type SessionEventData =
  | { type: 'session.started'; sessionId: string; goal: string; successCriteria: string[]; budget: SessionBudget; maxThoughtChars: number; at: number }
  // modelCalls: the engine's model calls that made the thought (absent: none, and in logs written before it was recorded).
  | { type: 'thought.added'; thoughtId: string; role: ThoughtRole; content: string; parentIds: string[]; edge?: ThoughtEdge; branchId?: string; tokens: number; modelCalls?: number; writer: string; clock: Record<string, number>; at: number }
  | { type: 'branch.forked'; from: string; branches: { branchId: string; name: string }[]; at: number }
  | { type: 'branch.transitioned'; branchId: string; trigger: BranchTrigger; from: BranchState; to: BranchState; reason?: string; at: number }
  | { type: 'session.state_changed'; from: SessionState; to: SessionState; reason?: string; at: number }
  | { type: 'branch.planned'; branchId: string; kind: string; plan: unknown; at: number }
  | { type: 'branch.scored'; branchId: string; score: BranchScore; reward: number; issues?: string[]; at: number }
  | { type: 'evidence.received'; branchId: string; evidenceId: string; kind: 'execution' | 'doc_validation'; success: boolean; summary: string; data: Record<string, unknown>; failure?: { category: string; signature: string }; at: number }
  // A person's word on a validated branch's plan, before it is exported for execution.
  | { type: 'branch.approval'; branchId: string; approved: boolean; reason?: string; at: number };

const id = z.string().min(1);
const at = z.number();
const sessionState = z.enum(['init', 'active', 'warning', 'paused', 'completed', 'failed', 'timeout', 'budget_exceeded']);
const branchState = z.enum(['init', 'planning', 'scoring', 'validating', 'validated', 'rejected', 'executing', 'evidence_received', 'early_stopped', 'completed']);

/** @internal What the fold reads of each event, checked: a corrupt stream fails with its position. */
export const sessionEventSchemas: Record<SessionEventData['type'], z.ZodType> = {
  'session.started': z.looseObject({ sessionId: id, goal: z.string(), successCriteria: z.array(z.string()), budget: z.looseObject({ maxTokens: z.number().optional(), maxMs: z.number().optional(), maxBranches: z.number().optional() }), maxThoughtChars: z.number().int().positive(), at }),
  'thought.added': z.looseObject({
    thoughtId: id,
    role: z.enum(['planner', 'critic', 'tester', 'decider']),
    content: z.string(),
    parentIds: z.array(id),
    edge: z.enum(['causes', 'refines', 'contradicts', 'supports']).optional(),
    branchId: id.optional(),
    tokens: z.number().int().nonnegative(),
    modelCalls: z.number().int().nonnegative().optional(),
    writer: id,
    clock: z.record(z.string(), z.number().int().nonnegative()),
    at,
  }),
  'branch.forked': z.looseObject({ from: id, branches: z.array(z.looseObject({ branchId: id, name: z.string() })).min(1), at }),
  'branch.transitioned': z.looseObject({ branchId: id, trigger: z.string(), from: branchState, to: branchState, reason: z.string().optional(), at }),
  'session.state_changed': z.looseObject({ from: sessionState, to: sessionState, reason: z.string().optional(), at }),
  'branch.planned': z.looseObject({ branchId: id, kind: z.string().min(1), plan: z.unknown(), at }),
  'branch.scored': z.looseObject({ branchId: id, score: z.looseObject({ completeness: z.number().optional(), risk: z.number().optional(), cost: z.number().optional(), historyPrior: z.number().optional() }), reward: z.number(), issues: z.array(z.string()).optional(), at }),
  'evidence.received': z.looseObject({
    branchId: id,
    evidenceId: id,
    kind: z.enum(['execution', 'doc_validation']),
    success: z.boolean(),
    summary: z.string(),
    data: z.record(z.string(), z.unknown()),
    failure: z.looseObject({ category: z.string(), signature: z.string() }).optional(),
    at,
  }),
  'branch.approval': z.looseObject({ branchId: id, approved: z.boolean(), reason: z.string().optional(), at }),
};
