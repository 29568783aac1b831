import { z } from 'zod';
import { int, sessionId, strings } from '../input.js';
import { tool, type ToolSpec } from '../tool-spec.js';
import { pendingApprovals } from './approval-tools.js';
import { branchOut, branchShape, readOnly, sessionLine, sessionLineShape, writes, writesOnce } from './shapes.js';

const budget = z
  .object({
    max_tokens: int('budget.max_tokens', 1, 100_000_000).optional(),
    max_ms: int('budget.max_ms', 1, 2_147_483_647).optional(),
    max_branches: int('budget.max_branches', 1, 1000).optional(),
  })
  .optional();

export const sessionTools: ToolSpec[] = [
  tool({
    name: 'think_session_start',
    title: 'Start a thinking session',
    description: 'Starts an agent session for a goal, with success criteria and a hard budget (tokens, wall time, branches). Returns its session_id: every other tool takes it. Sessions are stored, so they survive restarts of the server.',
    input: z.object({
      goal: z.string({ error: 'goal: send the goal as text' }).min(1, 'goal: send the goal as text').max(4000, 'goal: at most 4,000 characters'),
      success_criteria: strings('success_criteria').optional(),
      budget,
    }),
    output: z.object({ ...sessionLineShape, goal: z.string() }),
    annotations: writes,
    async run(a, ctx) {
      const s = await ctx.engine.startSession({
        goal: a.goal,
        ...(a.success_criteria ? { successCriteria: a.success_criteria } : {}),
        ...(a.budget ? { budget: { ...(a.budget.max_tokens ? { maxTokens: a.budget.max_tokens } : {}), ...(a.budget.max_ms ? { maxMs: a.budget.max_ms } : {}), ...(a.budget.max_branches ? { maxBranches: a.budget.max_branches } : {}) } } : {}),
        signal: ctx.signal,
      });
      ctx.sessions.add(s);
      return { structured: { ...sessionLine(s), goal: a.goal }, text: `Session ${s.id} started.\n${s.auditBar()}` };
    },
  }),
  tool({
    name: 'think_session_status',
    title: 'Session status',
    description: "A session's state, its branches (state, reward), its metrics (tokens per solved task, waste ratio, early stops) and the audit bar; when the server asks for approval before export, the questions waiting for a person (answer them with think_answer).",
    input: z.object({ session_id: sessionId }),
    output: z.object({
      ...sessionLineShape,
      goal: z.string(),
      thoughts: z.number(),
      tokens_used: z.number(),
      branches: z.array(branchShape),
      metrics: z.record(z.string(), z.unknown()),
      /** With approvals on (approvePlans): the validated plans waiting for a person's answer, by question id. */
      pending_questions: z.array(z.string()).optional(),
    }),
    annotations: readOnly,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      await s.refresh({ signal: ctx.signal });
      const snap = s.snapshot();
      const metrics = s.metrics();
      return {
        structured: { ...sessionLine(s), goal: snap.goal, thoughts: snap.thoughts.length, tokens_used: snap.tokensUsed, branches: snap.branches.map(branchOut), metrics: { ...metrics }, ...(ctx.approvePlans ? { pending_questions: pendingApprovals(s) } : {}) },
        text: `${s.id}: ${s.state}, ${snap.thoughts.length} thoughts, ${snap.branches.length} branches.\n${s.auditBar()}`,
      };
    },
  }),
  tool({
    name: 'think_session_control',
    title: 'Pause, resume, complete or fail a session',
    description: 'Moves the session through its state machine: pause (writes refused until resume), resume, complete (the goal is met), fail.',
    input: z.object({
      session_id: sessionId,
      action: z.enum(['pause', 'resume', 'complete', 'fail'], { error: 'action: send pause, resume, complete or fail' }),
      reason: z.string().max(400).optional(),
    }),
    output: z.object(sessionLineShape),
    annotations: writesOnce,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      // Asking for the state the session is already in changes nothing (a retried call succeeds).
      const target = { pause: 'paused', resume: 'active', complete: 'completed', fail: 'failed' }[a.action];
      if (s.state === target || (a.action === 'resume' && s.state === 'warning')) return { structured: sessionLine(s), text: `${s.id} is ${s.state}.` };
      if (a.action === 'pause') await s.pause(a.reason);
      else if (a.action === 'resume') await s.resume();
      else if (a.action === 'complete') await s.complete(a.reason);
      else await s.fail(a.reason);
      return { structured: sessionLine(s), text: `${s.id} is ${s.state}.` };
    },
  }),
  tool({
    name: 'think_checkpoint',
    title: 'Checkpoint a session',
    description: "Writes a checkpoint of the session (a snapshot of its state at the current version), so that a restore reads the checkpoint and only the events after it. The engine also checkpoints every 100 events or 5 minutes.",
    input: z.object({ session_id: sessionId }),
    output: z.object({ session_id: z.string(), version: z.number() }),
    annotations: writesOnce,
    async run(a, ctx) {
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      const { version } = await s.checkpoint();
      return { structured: { session_id: s.id, version }, text: `Checkpoint of ${s.id} at version ${version}.` };
    },
  }),
  tool({
    name: 'think_session_restore',
    title: 'Restore a session from the store',
    description: 'Reloads the session from the store (its latest checkpoint, then the events after it), dropping what this server held of it: the state every server sharing the store sees.',
    input: z.object({ session_id: sessionId }),
    output: z.object({ ...sessionLineShape, version: z.number(), thoughts: z.number(), branches: z.array(branchShape) }),
    annotations: readOnly,
    async run(a, ctx) {
      ctx.sessions.forget(a.session_id);
      const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
      const snap = s.snapshot();
      return { structured: { ...sessionLine(s), version: snap.version, thoughts: snap.thoughts.length, branches: snap.branches.map(branchOut) }, text: `${s.id} restored at version ${snap.version}: ${snap.thoughts.length} thoughts.\n${s.auditBar()}` };
    },
  }),
];
