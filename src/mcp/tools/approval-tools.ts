import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import type { AgentSession } from '../../sessions/agent-session.js';
import { approvalBranchOf } from '../../sessions/plan-approval.js';
import type { Question } from '../../run/question.js';
import type { ElicitOutcome } from '../elicit.js';
import { object, sessionId } from '../input.js';
import { tool, type ToolContext, type ToolOutput, type ToolSpec } from '../tool-spec.js';
import { writesOnce } from './shapes.js';

/** A pending question as a tool result names it: what to ask the person and how to answer it. */
export const questionShape = z.object({ id: z.string(), question: z.string(), schema: z.record(z.string(), z.unknown()).optional(), preview: z.unknown().optional() });

const questionOut = (q: Question) => ({ id: q.id, question: q.question, ...(q.schema ? { schema: q.schema as Record<string, unknown> } : {}), ...(q.preview === undefined ? {} : { preview: q.preview }) });

/** How to answer a pending approval, for the agent to follow. */
const howToAnswer = (s: AgentSession, q: Question, tool: string) =>
  `Show the person the plan and ask: "${q.question}" Then call think_answer with session_id ${s.id}, question_id ${q.id} and answer {"approved": true} or {"approved": false, "reason": "…"}, and call ${tool} again.`;

/**
 * The confirm step before an export, when the server asks for it or a person already answered:
 * undefined when the export may go ahead, else the tool's result (the question still pending, or
 * the plan denied). Asks through the client's elicitation when it takes forms; an answer given
 * there is recorded like one sent to think_answer.
 */
export async function approvalGate(s: AgentSession, branchId: string, ctx: ToolContext, tool: string): Promise<ToolOutput | undefined> {
  const branch = s.branch(branchId);
  if (!branch || (branch.state !== 'validated' && !branch.approval)) return undefined; // the export's own checks say why
  let approval = branch.approval;
  let declined = false;
  const question = s.approvalQuestion(branchId);
  if (!approval && question && ctx.approvePlans) {
    let failed: string | undefined;
    if (ctx.elicit) {
      let said: ElicitOutcome | undefined;
      try {
        said = await ctx.elicit(question, { signal: ctx.signal });
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        // The client said it takes forms but the request failed: the question stays pending, and
        // think_answer still answers it.
        failed = error instanceof Error ? error.message : String(error);
      }
      if (said?.action === 'accept') approval = (await s.approvePlan(branchId, { ...(said.content as { approved: boolean }), signal: ctx.signal })).approval;
      else if (said) declined = true;
    }
    if (!approval) {
      const why = failed ? `Asking through the client failed (${failed}).` : declined ? 'The person did not answer the approval request.' : 'This plan needs a person\'s approval before it is exported.';
      return {
        structured: { session_id: s.id, branch_id: branchId, status: 'approval_pending', question: questionOut(question), next: howToAnswer(s, question, tool) },
        text: `${why} Pending question ${question.id}: ${question.question}\n${howToAnswer(s, question, tool)}`,
      };
    }
  }
  if (approval && !approval.approved) {
    return {
      structured: { session_id: s.id, branch_id: branchId, status: 'not_approved', ...(approval.reason ? { reason: approval.reason } : {}), next: 'The plan was not approved: revise it on a new branch (think_branch_fork, think_plan_step with plan, think_validate_plan).' },
      text: `Branch ${branchId}'s plan was not approved${approval.reason ? `: ${approval.reason}` : ''}. Fork a new branch to try another plan.`,
    };
  }
  return undefined;
}

/** The ids of the approval questions a session's validated, unanswered branches wait on. */
export function pendingApprovals(s: AgentSession): string[] {
  const ids: string[] = [];
  // Branch ids are br0, br1, … in fork order: read in place, without a copy of the whole session.
  for (let i = 0; i < s.branchCount; i++) {
    const id = s.approvalQuestion(`br${i}`)?.id;
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/** think_answer: a person's answer to a pending question, recorded in the session. */
export const answerTool: ToolSpec = tool({
  name: 'think_answer',
  title: 'Answer a pending question',
  description:
    "Records a person's answer to a question a tool left pending (status approval_pending names it): the approval of a branch's plan before it is exported, question id branch/<branch_id>#approve, answer {\"approved\": true} or {\"approved\": false, \"reason\": \"…\"}. Ask the person; never answer for them. An answer is given once: the same answer again changes nothing, a different one is refused.",
  input: z.object({
    session_id: sessionId,
    question_id: z.string({ error: 'question_id: send the id of the pending question (branch/br0#approve)' }).min(1, 'question_id: send the id of the pending question (branch/br0#approve)'),
    answer: object('answer'),
  }),
  output: z.object({ session_id: z.string(), question_id: z.string(), status: z.literal('answered'), approved: z.boolean(), next: z.string() }),
  annotations: writesOnce,
  async run(a, ctx) {
    const s = await ctx.sessions.get(a.session_id, { signal: ctx.signal });
    await s.refresh({ signal: ctx.signal });
    const branchId = approvalBranchOf(a.question_id);
    if (branchId === undefined || !s.branch(branchId)) {
      const pending = pendingApprovals(s);
      throw new TotError('INVALID_ARGUMENT', `question_id: session ${s.id} has no question ${a.question_id}; ${pending.length > 0 ? `its pending questions are ${pending.join(', ')}` : 'nothing is pending in it'}.`, { details: { field: 'question_id' } });
    }
    const b = await s.approvePlan(branchId, { ...(a.answer as { approved: boolean }), signal: ctx.signal });
    const approved = b.approval!.approved;
    const next = approved ? `Call think_export_plan (or think_export_doc_plan) with branch_id ${branchId} to export the approved plan.` : 'The plan was denied: revise it on a new branch (think_branch_fork, think_plan_step with plan, think_validate_plan).';
    return { structured: { session_id: s.id, question_id: a.question_id, status: 'answered', approved, next }, text: `${a.question_id}: ${approved ? 'approved' : 'denied'}. ${next}` };
  },
});
