import { TotError } from '../../errors/index.js';
import { z } from 'zod';
import { llmBranchWorker, type BranchWorker } from '../../sessions/branch-worker.js';
import { int, sessionId, strings } from '../input.js';
import { tool, type ToolSpec } from '../tool-spec.js';
import { PLANNABLE } from './thought-tools.js';
import { branchShape, sessionLine, sessionLineShape } from './shapes.js';

/** Plays the plans the client wrote (think_plan_step with plan): no model needed. */
const clientPlans: BranchWorker = (branch) => ({ plan: branch.plan, ...(branch.planKind ? { planKind: branch.planKind } : {}) });

export const parallelRunTool: ToolSpec = tool({
  name: 'think_parallel_run',
  title: 'Work branches in parallel',
  description:
    'Works several branches at once and picks one: race (the first valid plan wins, the others stop), best (all finish, highest reward), vote (majority answer), bandit (UCB gives rounds to the most promising). Branches are planned by your model through MCP sampling when your client offers it, else by the server\'s model; with neither, the tool returns the branches that still need a plan (status needs_plans): write one for each with think_plan_step (branch_id and plan), then call this tool again to score and schedule them. Status completed means the winner\'s plan passed validation; no_valid_plan means none did, with each branch\'s issues to fix.',
  input: z.object({
    session_id: sessionId,
    branch_ids: strings('branch_ids', 1, 64),
    strategy: z.enum(['race', 'best', 'vote', 'bandit'], { error: 'strategy: send race, best, vote or bandit' }).default('race'),
    round_tokens: int('round_tokens', 16, 8000).default(400),
    max_rounds: int('max_rounds', 1, 10).default(3),
    planner: z.enum(['auto', 'sampling', 'server', 'client'], { error: 'planner: send auto, sampling, server or client' }).default('auto'),
  }),
  output: z.object({
    ...sessionLineShape,
    /** completed: the winner's plan passed validation; no_valid_plan: no branch's did (each branch says why); needs_plans: write plans first. */
    status: z.enum(['completed', 'no_valid_plan', 'needs_plans']),
    planner: z.string(),
    stop_reason: z.string().optional(),
    winner: branchShape.optional(),
    branches: z.array(branchShape.extend({ has_plan: z.boolean().optional(), rounds: z.number().optional(), issues: z.array(z.string()).optional() })),
    votes: z.record(z.string(), z.number()).optional(),
    errors: z.array(z.object({ code: z.string(), message: z.string(), branch_id: z.string().optional() })).optional(),
    next: z.string().optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(a, ctx) {
    const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
    const unknown = a.branch_ids.filter((id) => !s.branch(id));
    const settled = a.branch_ids.filter((id) => s.branch(id) && !PLANNABLE.has(s.branch(id)!.state));
    if (unknown.length > 0) throw new TotError('INVALID_ARGUMENT', `branch_ids: no branch ${unknown.join(', ')} in session ${s.id}; its branches are ${s.snapshot().branches.map((b) => b.id).join(', ') || 'none yet (fork some with think_branch_fork)'}.`, { details: { field: 'branch_ids' } });
    if (settled.length > 0) {
      throw new TotError('INVALID_ARGUMENT', `branch_ids: ${settled.map((id) => `${id} is ${s.branch(id)!.state}`).join(', ')}: a branch past validation is not run again; send the branches still open, or fork new ones.`, { details: { field: 'branch_ids' } });
    }
    const sampling = a.planner === 'auto' || a.planner === 'sampling' ? ctx.sampling?.() : undefined;
    const planner = a.planner !== 'auto' ? a.planner : sampling ? 'sampling' : ctx.model ? 'server' : 'client';
    const model = planner === 'sampling' ? sampling : planner === 'server' ? ctx.model : undefined;
    if ((planner === 'sampling' || planner === 'server') && !model) {
      const what = planner === 'sampling' ? 'this client offers no sampling' : 'this server has no model (start it with --model)';
      throw new TotError('INVALID_ARGUMENT', `planner: ${what}; send planner "auto" or "client".`, { details: { field: 'planner' } });
    }
    if (planner === 'client') {
      const branches = a.branch_ids.map((id) => {
        const b = s.branch(id);
        return { branch_id: id, name: b?.name ?? '', state: b?.state ?? 'unknown', has_plan: b?.plan !== undefined };
      });
      const missing = branches.filter((b) => !b.has_plan);
      if (missing.length > 0) {
        return {
          structured: { ...sessionLine(s), status: 'needs_plans', planner, branches, next: `Write a plan for ${missing.map((b) => b.branch_id).join(', ')} with think_plan_step (session_id, branch_id, content, plan), then call think_parallel_run again.` },
          text: `No model to plan with: write plans for ${missing.map((b) => b.branch_id).join(', ')} (think_plan_step with plan), then call think_parallel_run again.`,
        };
      }
    }
    const r = await s.runParallel({
      branchIds: a.branch_ids,
      strategy: a.strategy,
      worker: planner === 'client' ? clientPlans : llmBranchWorker(),
      ...(model ? { model } : {}),
      roundTokens: a.round_tokens,
      maxRounds: planner === 'client' ? 1 : a.max_rounds,
      signal: ctx.signal,
    });
    // A winner on reward (best, bandit) or votes need not be valid: only a validated one completes the run.
    const winner = r.winner?.state === 'validated' ? r.winner : undefined;
    const branches = r.branches.map((b) => {
      const issues = b.state === 'validated' ? undefined : s.branch(b.branchId)?.issues;
      return {
        branch_id: b.branchId,
        name: b.name,
        state: b.state,
        rounds: b.rounds,
        ...(b.reward === undefined ? {} : { reward: b.reward }),
        ...(b.earlyStopReason ? { early_stop_reason: b.earlyStopReason } : {}),
        ...(issues && issues.length > 0 ? { issues } : {}),
      };
    });
    const errors = r.errors.length > 0 ? { errors: r.errors.map((e) => ({ code: e.code, message: e.message, ...(e.where?.kind === 'branch' ? { branch_id: e.where.branchId } : {}) })) } : {};
    const errorText = r.errors.length > 0 ? `\nErrors: ${r.errors.map((e) => e.message).join('; ')}` : '';
    if (!winner) {
      const fix = planner === 'client' ? 'fix the plans with think_plan_step (branch_id and plan)' : 'call this tool again (the planner revises a rejected plan from its issues), or write the plans yourself with think_plan_step and planner "client"';
      const why = branches.map((b) => `${b.branch_id} ${b.state}${b.issues ? ` (${b.issues.join('; ')})` : ''}`).join(', ');
      return {
        structured: {
          ...sessionLine(s),
          status: 'no_valid_plan',
          planner,
          stop_reason: r.stopReason,
          branches,
          ...(r.votes ? { votes: r.votes } : {}),
          ...errors,
          next: `No branch's plan passed validation: ${fix}, then call think_parallel_run again.`,
        },
        text: `${a.strategy}: no valid plan; ${why}.${errorText}\n${s.auditBar()}`,
      };
    }
    return {
      structured: {
        ...sessionLine(s),
        status: 'completed',
        planner,
        stop_reason: r.stopReason,
        winner: { branch_id: winner.id, name: winner.name, state: winner.state, ...(winner.reward === undefined ? {} : { reward: winner.reward }) },
        branches,
        ...(r.votes ? { votes: r.votes } : {}),
        ...errors,
      },
      text: `${a.strategy}: ${winner.id} (${winner.name}) wins; ${branches.map((b) => `${b.branch_id} ${b.state}`).join(', ')}.${errorText}\n${s.auditBar()}`,
    };
  },
});
