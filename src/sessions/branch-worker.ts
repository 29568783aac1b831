import type { AskAnswer, AskRequest } from '../run/question.js';
import type { StandardSchemaV1 } from '../internal/standard-schema.js';
import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { estimateTokens } from '../budget/estimate-tokens.js';
import { clipText as clip } from '../internal/clip-text.js';
import { parseOptions } from '../internal/validate.js';
import { callModel } from '../model/call-model.js';
import type { LanguageModel } from '../model/types.js';
import { parseStructured } from '../structured/index.js';
import type { ThoughtRole } from './session-events.js';
import type { SessionBranch } from './session-model.js';

/**
 * What one round of a branch produced: thoughts to add to the branch, the branch's plan (validated
 * at once), an answer (for `vote`), tokens spent outside the context's model.
 *
 * What the context's model spent is recorded on the thoughts, so that the session's tokens and its
 * model hops are true: a thought with `modelCalls: n` is paid the next `n` calls of the round (in
 * the order they returned) on top of its own `tokens`; the calls and `tokens` no thought claims go
 * on the first thought that states neither its `tokens` nor its `modelCalls` (else the last one;
 * with no thought at all, the scheduler records one for the round). A round whose worker throws
 * after model calls is recorded too: the scheduler writes a thought `Round <n> of <branch> failed:
 * <error>` that holds the calls (after {@link llmBranchWorker}'s critique, when the critic spoke and
 * the planner then failed), so that the session's budget and TPST count every call.
 *
 * @example
 * ```ts
 * import type { BranchRoundOutcome } from '@tot/core/sessions';
 *
 * const outcome: BranchRoundOutcome = { thoughts: [{ content: 'Use an LRU of 64 entries.' }], plan: { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'] } };
 * ```
 */
export interface BranchRoundOutcome {
  /** `tokens`: what a thought cost outside the context's model; `modelCalls`: the context's model calls that made it. */
  thoughts?: { role?: ThoughtRole; content: string; tokens?: number; modelCalls?: number }[];
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
 * import type { BranchWorkerContext } from '@tot/core/sessions';
 *
 * const revising = (ctx: BranchWorkerContext) => ctx.round > 1 && ctx.issues.length > 0;
 * ```
 */
export interface BranchWorkerContext {
  goal: string;
  successCriteria: string[];
  /** 1 for the first round of this branch. */
  round: number;
  /**
   * The round's allowance of tokens (`runParallel`'s `roundTokens`): the worker's to keep to, as a
   * cap on its calls' `maxOutputTokens`. Nothing cuts a round off at it: a round is recorded at what
   * it really cost, and the hard limits are the session's budget and the run's `budget`.
   */
  roundTokens: number;
  /** The session's limit on a thought's length, in characters: longer content is refused (`INVALID_ARGUMENT`). */
  maxThoughtChars: number;
  /** What the branch's last validation found wrong (empty in round 1). */
  issues: string[];
  /** The branch's thoughts so far, in order. */
  thoughts: { role: ThoughtRole; content: string }[];
  /** The run's model, when it has one: budgeted, logged, and aborted when the branch loses or the run stops. */
  model: LanguageModel | undefined;
  /** Aborts when the branch loses a race, or the run stops. */
  signal: AbortSignal;
  /**
   * Asks a person, answered by the run's `onAsk` (a parallel run cannot wait to be resumed: without
   * `onAsk` the ask rejects with `ILLEGAL_STATE`). The question's id is `branch/<branchId>#<key>`.
   */
  ask?: <A extends StandardSchemaV1 | undefined = undefined>(request: AskRequest<NonNullable<A>> & { schema?: A }) => Promise<AskAnswer<A>>;
}

/**
 * One round of work on a branch: plan, revise, answer. The scheduler records what it returns and
 * validates the plan.
 *
 * @example
 * ```ts
 * import type { BranchWorker } from '@tot/core/sessions';
 *
 * const worker: BranchWorker = async (branch, ctx) => ({ thoughts: [{ content: `${branch.name}: round ${ctx.round}` }], plan: await makePlan(branch.name, { signal: ctx.signal }) });
 * ```
 */
export type BranchWorker = (branch: SessionBranch, ctx: BranchWorkerContext) => BranchRoundOutcome | Promise<BranchRoundOutcome>;

const replySchema = z.object({ summary: z.string().min(1), plan: z.record(z.string(), z.unknown()) });

/**
 * The reply {@link DEFAULT_BRANCH_PROMPT} asks the planner for: a one-line summary and the plan
 * object (validated afterwards against the session's plan schema). A custom prompt must still ask
 * for it.
 *
 * @example
 * ```ts
 * import { branchPlannerReplySchema } from '@tot/core/sessions';
 *
 * branchPlannerReplySchema.parse({ summary: 'Three steps', plan: { steps: [] } });
 * ```
 */
export const branchPlannerReplySchema = replySchema;

/**
 * The prompt of {@link llmBranchWorker}'s round.
 *
 * @example
 * ```ts
 * import { DEFAULT_BRANCH_PROMPT } from '@tot/core/sessions';
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
 * The prompt of {@link llmBranchWorker}'s critic, in a round after a rejection: it reads the
 * rejected plan and what validation found wrong, and says what the revision must change.
 *
 * @example
 * ```ts
 * import { DEFAULT_CRITIC_PROMPT } from '@tot/core/sessions';
 *
 * DEFAULT_CRITIC_PROMPT.includes('{{issues}}'); // true
 * ```
 */
export const DEFAULT_CRITIC_PROMPT = [
  'You are the critic of a plan that validation rejected. Say what is wrong with it and what the revised plan must change.',
  'Goal: {{goal}}',
  'Success criteria: {{criteria}}',
  'Approach: {{branch}}',
  'Rejected plan: {{plan}}',
  'Validation found: {{issues}}',
  'Reply with plain text only, at most {{maxChars}} characters.',
].join('\n');

/** The thoughts a worker's round made before it threw, by the error it threw (see {@link thoughtsBeforeFailure}). */
const partial = new WeakMap<object, NonNullable<BranchRoundOutcome['thoughts']>>();

/**
 * @internal The thoughts {@link llmBranchWorker} made in a round before it failed with `error` (the
 * critique of a round whose planner's reply did not parse), for the scheduler to record with the
 * calls that made them; none for any other error.
 */
export function thoughtsBeforeFailure(error: unknown): NonNullable<BranchRoundOutcome['thoughts']> {
  return (typeof error === 'object' && error !== null && partial.get(error)) || [];
}

// One pass: a goal or a critique that happens to contain `{{plan}}` is not filled in again.
const fill = (template: string, values: Record<string, string>) => template.replace(/\{\{(\w+)\}\}/g, (m, key: string) => values[key] ?? m);

/**
 * The default worker (the loop: plan step, then validation; on rejection a critic revision
 * and another round). A first round is one model call: the planner's plan and a short summary.
 * A round after a rejection is two: the critic (a model call with {@link DEFAULT_CRITIC_PROMPT})
 * reads the rejected plan and the validation's issues and says what must change, then the planner
 * revises with both. The critic is a model call rather than a list of the issues because the
 * issues say what failed, not how to fix it, and because the session engine's critic is a role of the model.
 * Thoughts are clipped to the session's `maxThoughtChars`; the round's output stays within
 * `roundTokens` (the critic may write a quarter of it, the planner what is left).
 *
 * @example
 * ```ts
 * import { llmBranchWorker } from '@tot/core/sessions';
 *
 * const out = await session.runParallel({ branchIds, strategy: 'race', worker: llmBranchWorker(), model });
 * ```
 */
export function llmBranchWorker(options: { prompt?: string; criticPrompt?: string } = {}): BranchWorker {
  parseOptions(z.strictObject({ prompt: z.string().optional(), criticPrompt: z.string().optional() }), options, 'llmBranchWorker');
  const template = options.prompt ?? DEFAULT_BRANCH_PROMPT;
  const criticTemplate = options.criticPrompt ?? DEFAULT_CRITIC_PROMPT;
  return async (branch, ctx) => {
    if (!ctx.model) throw new TotError('INVALID_ARGUMENT', 'llmBranchWorker needs a model: give runParallel() a model, or the engine one.');
    const values = { goal: ctx.goal, criteria: ctx.successCriteria.join('; ') || 'none given', branch: branch.name };
    const thoughts: NonNullable<BranchRoundOutcome['thoughts']> = [];
    let outputLeft = ctx.roundTokens;
    let history = '';
    if (ctx.issues.length > 0) {
      const issues = ctx.issues.join('; ');
      const prompt = fill(criticTemplate, { ...values, plan: clip(JSON.stringify(branch.plan ?? null), 4000), issues, maxChars: String(ctx.maxThoughtChars) });
      const result = await callModel(ctx.model, { messages: [{ role: 'user', content: prompt }], maxOutputTokens: Math.max(1, Math.floor(ctx.roundTokens / 4)), tags: { role: 'critic', branch: branch.id, round: String(ctx.round) } }, { signal: ctx.signal });
      const reply = (result.outputs[0] ?? '').trim();
      outputLeft -= result.usage.outputTokens ?? estimateTokens(reply);
      // A critic that says nothing still leaves the issues on record.
      const critique = clip(reply || `Rejected: ${issues}`, ctx.maxThoughtChars);
      thoughts.push({ role: 'critic', content: critique, modelCalls: 1 });
      history = `Your last plan was rejected. Validation: ${issues}. Critic: ${critique} Revise it.`;
    }
    try {
      const prompt = fill(template, { ...values, history });
      const result = await callModel(ctx.model, { messages: [{ role: 'user', content: prompt }], maxOutputTokens: Math.max(1, outputLeft), responseFormat: { type: 'json' }, tags: { role: 'planner', branch: branch.id, round: String(ctx.round) } }, { signal: ctx.signal });
      const parsed = parseStructured(result.outputs[0] ?? '', { schema: replySchema });
      if (!parsed.success) throw new TotError('INVALID_FORMAT', `Branch ${branch.id}: the planner's reply is not a plan: ${parsed.error}`, { details: { rawOutputs: [...result.outputs] } });
      thoughts.push({ role: 'planner', content: clip(parsed.value.summary, ctx.maxThoughtChars), modelCalls: 1 });
      return { thoughts, plan: parsed.value.plan };
    } catch (error) {
      // The critique was made and paid for: the scheduler records it, with its call, though the planner failed.
      if (thoughts.length > 0 && typeof error === 'object' && error !== null) partial.set(error, [...thoughts]);
      throw error;
    }
  };
}
