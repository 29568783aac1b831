import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { callModel } from '../model/call-model.js';
import type { LanguageModel } from '../model/types.js';
import { parseStructured } from '../structured/index.js';
import type { ThoughtRole } from './got-events.js';
import type { GotBranch } from './session-model.js';

/**
 * What one round of a branch produced: thoughts to add to the branch, the branch's plan (validated
 * at once), an answer (for `vote`), tokens spent outside the context's model.
 *
 * @example
 * ```ts
 * import type { BranchRoundOutcome } from '@tot/core';
 *
 * const outcome: BranchRoundOutcome = { thoughts: [{ content: 'Use an LRU of 64 entries.' }], plan: { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'] } };
 * ```
 */
export interface BranchRoundOutcome {
  thoughts?: { role?: ThoughtRole; content: string; tokens?: number }[];
  plan?: unknown;
  /** The plan's kind (`execution` by default, `doc`, or yours). */
  planKind?: string;
  answer?: string;
  tokens?: number;
}

/**
 * What a {@link BranchWorker} is given for a round.
 *
 * @example
 * ```ts
 * import type { BranchWorkerContext } from '@tot/core';
 *
 * const revising = (ctx: BranchWorkerContext) => ctx.round > 1 && ctx.issues.length > 0;
 * ```
 */
export interface BranchWorkerContext {
  goal: string;
  successCriteria: string[];
  /** 1 for the first round of this branch. */
  round: number;
  /** The tokens this round may use (a hint for `maxOutputTokens`). */
  roundTokens: number;
  /** What the branch's last validation found wrong (empty in round 1). */
  issues: string[];
  /** The branch's thoughts so far, in order. */
  thoughts: { role: ThoughtRole; content: string }[];
  /** The run's model, when it has one: budgeted, logged, and aborted when the branch loses or the run stops. */
  model: LanguageModel | undefined;
  /** Aborts when the branch loses a race, or the run stops. */
  signal: AbortSignal;
}

/**
 * One round of work on a branch: plan, revise, answer. The scheduler records what it returns and
 * validates the plan.
 *
 * @example
 * ```ts
 * import type { BranchWorker } from '@tot/core';
 *
 * const worker: BranchWorker = async (branch, ctx) => ({ thoughts: [{ content: `${branch.name}: round ${ctx.round}` }], plan: await makePlan(branch.name, { signal: ctx.signal }) });
 * ```
 */
export type BranchWorker = (branch: GotBranch, ctx: BranchWorkerContext) => BranchRoundOutcome | Promise<BranchRoundOutcome>;

const replySchema = z.object({ summary: z.string().min(1), plan: z.record(z.string(), z.unknown()) });

/**
 * The prompt of {@link llmBranchWorker}'s round.
 *
 * @example
 * ```ts
 * import { DEFAULT_BRANCH_PROMPT } from '@tot/core';
 *
 * DEFAULT_BRANCH_PROMPT.includes('"plan"'); // true
 * ```
 */
export const DEFAULT_BRANCH_PROMPT = [
  'You plan one approach to a goal, as an execution plan that another system will run.',
  'Goal: {{goal}}',
  'Success criteria: {{criteria}}',
  'Approach: {{branch}}',
  '{{history}}',
  'Reply with JSON only: {"summary": "<the approach in at most 300 characters>", "plan": {"dry_run": true, "rollback": {"strategy": "git_revert" | "backup_restore" | "none"}, "limits": {"max_changes": <lines, at most 1000>, "max_files": <files>}, "capabilities_required": ["..."], "success_criteria": ["..."], "steps": ["..."]}}',
].join('\n');

/**
 * The default worker (seed 004's loop): a planner round asks the model for the branch's plan and a
 * short summary; when the last validation rejected the plan, the critic's issues go into the next
 * round's prompt for a revision.
 *
 * @example
 * ```ts
 * import { llmBranchWorker } from '@tot/core';
 *
 * const out = await session.runParallel({ branchIds, strategy: 'race', worker: llmBranchWorker(), model });
 * ```
 */
export function llmBranchWorker(options: { prompt?: string } = {}): BranchWorker {
  const template = options.prompt ?? DEFAULT_BRANCH_PROMPT;
  return async (branch, ctx) => {
    if (!ctx.model) throw new TotError('INVALID_ARGUMENT', 'llmBranchWorker needs a model: give runParallel() a model, or the engine one.');
    const history = ctx.issues.length > 0 ? `Your last plan was rejected. Critic: ${ctx.issues.join('; ')}. Revise it.` : '';
    const prompt = template
      .replaceAll('{{goal}}', ctx.goal)
      .replaceAll('{{criteria}}', ctx.successCriteria.join('; ') || 'none given')
      .replaceAll('{{branch}}', branch.name)
      .replaceAll('{{history}}', history);
    const result = await callModel(ctx.model, { messages: [{ role: 'user', content: prompt }], maxOutputTokens: ctx.roundTokens, responseFormat: { type: 'json' }, tags: { role: 'planner', branch: branch.id } }, { signal: ctx.signal });
    const parsed = parseStructured(result.outputs[0] ?? '', { schema: replySchema });
    if (!parsed.success) throw new TotError('INVALID_FORMAT', `Branch ${branch.id}: the planner's reply is not a plan: ${parsed.error}`, { details: { rawOutputs: [...result.outputs] } });
    const reply = parsed.value;
    const thoughts: BranchRoundOutcome['thoughts'] = [];
    if (ctx.issues.length > 0) thoughts.push({ role: 'critic', content: `Rejected: ${ctx.issues.join('; ')}`.slice(0, 400), tokens: 0 });
    thoughts.push({ role: 'planner', content: reply.summary.slice(0, 400) });
    return { thoughts, plan: reply.plan };
  };
}
