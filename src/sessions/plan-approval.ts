import { z } from 'zod';
import { jsonSchemaOf } from '../internal/standard-schema.js';
import type { Question } from '../run/question.js';
import type { SessionBranch } from './session-model.js';

/**
 * A person's word on a branch's validated plan: approved or not, and why.
 *
 * @example
 * ```ts
 * import type { PlanApproval } from '@tot/core/sessions';
 *
 * const no: PlanApproval = { approved: false, reason: 'touches the billing tables' };
 * ```
 */
export interface PlanApproval {
  /** Whether the plan may be executed. */
  approved: boolean;
  /** Why, in the person's words. */
  reason?: string;
}

/** The one schema of an approval: the session's check, the run's `ask` and the MCP elicitation all read it. */
export const planApprovalSchema = z.strictObject({
  approved: z.boolean().meta({ title: 'Approve', description: 'Whether the plan may be executed.' }),
  reason: z.string().max(10_000).optional().meta({ title: 'Reason', description: 'Why, in a few words (optional).' }),
});

/** The key of the approval question: with the branch, its id is `branch/<branchId>#approve`. */
export const APPROVAL_KEY = 'approve';

/** The id of the question that approves a branch's plan. */
export const approvalQuestionId = (branchId: string): string => `branch/${branchId}#${APPROVAL_KEY}`;

/** The branch id an approval question's id names, or undefined when the id is not one. */
export function approvalBranchOf(questionId: string): string | undefined {
  return /^branch\/([^#/]+)#approve$/.exec(questionId)?.[1];
}

/** What a person sees to decide: the plan, its kind and its score. */
export function approvalPreview(b: SessionBranch): Record<string, unknown> {
  return { branchId: b.id, name: b.name, planKind: b.planKind ?? 'execution', plan: b.plan ?? null, ...(b.score ? { score: b.score } : {}), ...(b.reward === undefined ? {} : { reward: b.reward }) };
}

/** The words of the approval question. */
export const approvalWords = (b: SessionBranch): string => `Branch "${b.name}" (${b.id}) has a validated ${b.planKind ?? 'execution'} plan. Approve it for execution?`;

/**
 * The question that approves a branch's plan, as an `onAsk` handler, a waiting result and an MCP
 * client see it: the same id, words, schema and preview wherever it is asked.
 */
export function planApprovalQuestion(b: SessionBranch): Question {
  return {
    id: approvalQuestionId(b.id),
    key: APPROVAL_KEY,
    question: approvalWords(b),
    where: { kind: 'branch', branchId: b.id },
    schema: jsonSchemaOf(planApprovalSchema, 'input') as object,
    preview: approvalPreview(b),
  };
}
