import { TotError } from '../../errors/index.js';
import { z } from 'zod';
import { branchId, int, sessionId, strings } from '../input.js';
import { tool, type ToolSpec } from '../tool-spec.js';
import { planInput, planIssues } from './plan-tools.js';
import { branchOut, branchShape, edges, roles, sessionLine, sessionLineShape, triggers, writes } from './shapes.js';

/** Branch states whose plan may still change. */
export const PLANNABLE = new Set(['init', 'planning', 'scoring', 'validating', 'rejected']);

export const thoughtTools: ToolSpec[] = [
  tool({
    name: 'think_plan_step',
    title: 'Add a thought',
    description:
      'Adds a thought to the session\'s graph: a role (planner, critic, tester, decider), at most the session\'s character limit (400 by default: split longer thinking into several steps), its parents and how it relates to them. With branch_id it belongs to that branch; with plan it also sets the branch\'s plan: an ExecutionPlan (the default) or, with plan_kind "doc", a DocPlan, as the plan\'s input schema shows; what validation would refuse in it comes back at once as plan_issues. An idempotency_key makes a retried call add nothing twice.',
    input: z.object({
      session_id: sessionId,
      content: z.string({ error: 'content: send the thought as text' }).min(1, 'content: send the thought as text'),
      role: z.enum(roles, { error: `role: send one of ${roles.join(', ')}` }).default('planner'),
      parent_ids: strings('parent_ids').optional(),
      edge: z.enum(edges, { error: `edge: send one of ${edges.join(', ')}` }).optional(),
      branch_id: branchId.optional(),
      tokens: int('tokens', 0, 1_000_000).optional(),
      plan: planInput.optional(),
      plan_kind: z.enum(['execution', 'doc'], { error: 'plan_kind: send execution or doc' }).optional(),
      idempotency_key: z.string().min(1).max(200).optional(),
    }),
    output: z.object({ ...sessionLineShape, thought_id: z.string(), branch: branchShape.optional(), plan_issues: z.array(z.string()).optional() }),
    annotations: writes,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      // Friendlier refusals in the tool's own words; the session checks them all again as it writes.
      if (a.plan !== undefined) {
        if (!a.branch_id) throw new TotError('INVALID_ARGUMENT', 'plan: a plan belongs to a branch: send branch_id too.', { details: { field: 'branch_id' } });
        const b = s.branch(a.branch_id);
        if (!b) throw new TotError('INVALID_ARGUMENT', `branch_id: no branch ${a.branch_id} in session ${s.id}.`, { details: { field: 'branch_id' } });
        if (!PLANNABLE.has(b.state)) throw new TotError('ILLEGAL_STATE', `Branch ${b.id} is ${b.state}: its plan can no longer change (fork a new branch to try another plan).`, { details: { branchId: b.id, status: b.state } });
      }
      const t = await s.addThought({
        role: a.role,
        content: a.content,
        ...(a.parent_ids ? { parentIds: a.parent_ids } : {}),
        ...(a.edge ? { edge: a.edge } : {}),
        ...(a.branch_id ? { branchId: a.branch_id } : {}),
        ...(a.tokens === undefined ? {} : { tokens: a.tokens }),
        // Without the client's key, a key of this call's own: the tool adds a thought on every call,
        // as it says, rather than the engine's default (derived from the thought, so the same
        // thought twice would be one).
        idempotencyKey: a.idempotency_key ?? `mcp:${globalThis.crypto.randomUUID()}`,
        // The thought and the plan in one write: a plan the session or its store refuses leaves no
        // thought behind, and a retried call finds both or neither.
        ...(a.plan === undefined ? {} : { plan: a.plan, ...(a.plan_kind ? { planKind: a.plan_kind } : {}) }),
        signal: ctx.signal,
      });
      const branch = a.plan === undefined ? undefined : s.branch(a.branch_id!);
      // Said now, not only when think_validate_plan rejects it: the agent can fix the plan at once.
      const issues = branch ? planIssues(branch.plan, branch.planKind) : [];
      const fix = issues.length > 0 ? `; it will not pass validation: ${issues.join('; ')} (send a fixed plan)` : '';
      return {
        structured: { ...sessionLine(s), thought_id: t.id, ...(branch ? { branch: branchOut(branch) } : {}), ...(issues.length > 0 ? { plan_issues: issues } : {}) },
        text: `${t.id} (${t.role}) added${branch ? `; branch ${branch.id} has a plan${fix}` : ''}.\n${s.auditBar()}`,
      };
    },
  }),
  tool({
    name: 'think_branch_fork',
    title: 'Fork branches',
    description: 'Forks named branches from a thought: alternative approaches that can be planned, scored and scheduled in parallel (think_parallel_run). The session budget caps how many branches it may have.',
    input: z.object({
      session_id: sessionId,
      from: z.string({ error: 'from: send the id of the thought to branch from (t0, t1, …)' }).min(1),
      names: strings('names', 1, 64),
    }),
    output: z.object({ ...sessionLineShape, branches: z.array(branchShape) }),
    annotations: writes,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      const made = await s.fork({ from: a.from, branches: a.names.map((name) => ({ name })), signal: ctx.signal });
      return { structured: { ...sessionLine(s), branches: made.map(branchOut) }, text: `Forked ${made.map((b) => `${b.id} (${b.name})`).join(', ')} from ${a.from}.` };
    },
  }),
  tool({
    name: 'think_branch_merge',
    title: 'Merge branches',
    description: 'Adds a thought that merges branches: its parents are the branches\' last thoughts.',
    input: z.object({
      session_id: sessionId,
      branch_ids: strings('branch_ids', 2, 64),
      content: z.string({ error: 'content: send the merged thought as text' }).min(1),
      role: z.enum(roles).default('decider'),
      edge: z.enum(edges).optional(),
    }),
    output: z.object({ ...sessionLineShape, thought_id: z.string() }),
    annotations: writes,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      // A key of this call's own, as think_plan_step: every call adds a merging thought.
      const t = await s.merge({ branchIds: a.branch_ids, content: a.content, role: a.role, ...(a.edge ? { edge: a.edge } : {}), idempotencyKey: `mcp:${globalThis.crypto.randomUUID()}`, signal: ctx.signal });
      return { structured: { ...sessionLine(s), thought_id: t.id }, text: `${t.id} merges ${a.branch_ids.join(', ')}.` };
    },
  }),
  tool({
    name: 'think_branch_transition',
    title: 'Move a branch',
    description: `Moves a branch through its state machine with a trigger (${triggers.join(', ')}). A trigger its state does not accept is refused, naming the ones it does.`,
    input: z.object({
      session_id: sessionId,
      branch_id: branchId,
      trigger: z.enum(triggers, { error: `trigger: send one of ${triggers.join(', ')}` }),
      reason: z.string().max(400).optional(),
    }),
    output: z.object({ ...sessionLineShape, branch: branchShape }),
    annotations: writes,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      const b = await s.transition(a.branch_id, a.trigger, { ...(a.reason ? { reason: a.reason } : {}), signal: ctx.signal });
      return { structured: { ...sessionLine(s), branch: branchOut(b) }, text: `${b.id} is ${b.state}.` };
    },
  }),
];
