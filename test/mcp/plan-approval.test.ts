// The confirm step over MCP (createMcpServer's approvePlans): a plan is exported only once a person
// approved it, asked through the client's elicitation when the client takes forms, otherwise named
// in the tool's result and answered with think_answer, from this server or another on the store.
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { validPlan } from '../helpers/mcp-sampling.js';
import { closeInProcess, connectInProcess, errorText, type InProcess } from './in-process.js';

afterEach(closeInProcess);

type Pending = { status: 'approval_pending'; question: { id: string; question: string; schema: Record<string, unknown>; preview: { plan: unknown } }; next: string };

/** A session whose branch br0 holds a validated plan. */
async function validatedBranch(s: InProcess): Promise<string> {
  const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal: 'Cut cold start time' });
  await s.ok('think_plan_step', { session_id, content: 'root' });
  await s.ok('think_branch_fork', { session_id, from: 't0', names: ['lazy-load'] });
  await s.ok('think_plan_step', { session_id, branch_id: 'br0', content: 'Load lazily.', plan: validPlan('lazy-load') });
  expect((await s.ok<{ ok: boolean }>('think_validate_plan', { session_id, branch_id: 'br0' })).ok).toBe(true);
  return session_id;
}

/** A client whose user answers every elicitation with `answer`, keeping the requests it got. */
function answering(answer: { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' | 'cancel' }, capability: Record<string, unknown> = { form: {} }) {
  const requests: ElicitRequest['params'][] = [];
  return {
    requests,
    options: {
      approvePlans: true,
      elicitation: capability,
      setup: (c: InProcess['client']) =>
        c.setRequestHandler(ElicitRequestSchema, async (req) => {
          requests.push(req.params);
          return answer;
        }),
    },
  };
}

describe('approving a plan over MCP before it is exported', () => {
  it('asks the client\'s user through elicitation, showing the plan, and exports on approval', async () => {
    const user = answering({ action: 'accept', content: { approved: true } });
    const s = await connectInProcess(user.options);
    const session_id = await validatedBranch(s);
    const exported = await s.ok<{ _got_metadata: { branch_id: string } }>('think_export_plan', { session_id, branch_id: 'br0' });
    expect(exported._got_metadata.branch_id).toBe('br0');
    expect(user.requests).toHaveLength(1);
    const [request] = user.requests;
    expect(request!.message).toContain('Approve it for execution?');
    expect(request!.message).toContain('apply lazy-load');
    expect((request as { requestedSchema: unknown }).requestedSchema).toEqual({
      type: 'object',
      properties: { approved: expect.objectContaining({ type: 'boolean' }), reason: expect.objectContaining({ type: 'string', maxLength: 10_000 }) },
      required: ['approved'],
    });
    const status = await s.ok<{ branches: { branch_id: string; state: string }[] }>('think_session_status', { session_id });
    expect(status.branches[0]!.state).toBe('executing');
  });

  it('asks a client that declared elicitation as an empty object (form mode, as before URL mode)', async () => {
    const user = answering({ action: 'accept', content: { approved: true } }, {});
    const s = await connectInProcess(user.options);
    const session_id = await validatedBranch(s);
    await s.ok('think_export_plan', { session_id, branch_id: 'br0' });
    expect(user.requests).toHaveLength(1);
  });

  it('does not export a plan the user denied, and does not ask again', async () => {
    const user = answering({ action: 'accept', content: { approved: false, reason: 'not on a Friday' } });
    const s = await connectInProcess(user.options);
    const session_id = await validatedBranch(s);
    for (let i = 0; i < 2; i++) {
      const denied = await s.ok<{ status: string; reason: string }>('think_export_plan', { session_id, branch_id: 'br0' });
      expect(denied).toMatchObject({ status: 'not_approved', reason: 'not on a Friday' });
    }
    expect(user.requests).toHaveLength(1);
    const status = await s.ok<{ branches: { state: string }[] }>('think_session_status', { session_id });
    expect(status.branches[0]!.state).toBe('validated');
  });

  it('leaves the question pending when the user declines to answer', async () => {
    const user = answering({ action: 'decline' });
    const s = await connectInProcess(user.options);
    const session_id = await validatedBranch(s);
    const pending = await s.ok<Pending>('think_export_plan', { session_id, branch_id: 'br0' });
    expect(pending).toMatchObject({ status: 'approval_pending', question: { id: 'branch/br0#approve' } });
  });

  it('leaves the question pending, for think_answer, when the client fails the elicitation request', async () => {
    const s = await connectInProcess({
      approvePlans: true,
      elicitation: { form: {} },
      setup: (c) =>
        c.setRequestHandler(ElicitRequestSchema, async () => {
          throw new Error('no user at the keyboard');
        }),
    });
    const session_id = await validatedBranch(s);
    const pending = await s.ok<Pending>('think_export_plan', { session_id, branch_id: 'br0' });
    expect(pending).toMatchObject({ status: 'approval_pending', question: { id: 'branch/br0#approve' } });
    expect(pending.next).toContain('think_answer');
  });

  it('without elicitation, names the pending question and the tool that answers it; think_answer then lets the export through', async () => {
    const s = await connectInProcess({ approvePlans: true });
    const session_id = await validatedBranch(s);
    const pending = await s.ok<Pending>('think_export_plan', { session_id, branch_id: 'br0' });
    expect(pending.status).toBe('approval_pending');
    expect(pending.question).toMatchObject({ id: 'branch/br0#approve', preview: { plan: validPlan('lazy-load') } });
    expect(pending.question.schema).toMatchObject({ type: 'object', required: ['approved'] });
    expect(pending.next).toContain('think_answer');
    expect(pending.next).toContain('branch/br0#approve');
    const status = await s.ok<{ pending_questions: string[] }>('think_session_status', { session_id });
    expect(status.pending_questions).toEqual(['branch/br0#approve']);
    const answered = await s.ok<{ approved: boolean; next: string }>('think_answer', { session_id, question_id: 'branch/br0#approve', answer: { approved: true } });
    expect(answered).toMatchObject({ approved: true });
    expect(answered.next).toContain('think_export_plan');
    expect((await s.ok<{ pending_questions: string[] }>('think_session_status', { session_id })).pending_questions).toEqual([]);
    const exported = await s.ok<{ _got_metadata: unknown }>('think_export_plan', { session_id, branch_id: 'br0' });
    expect(exported._got_metadata).toMatchObject({ branch_id: 'br0' });
  });

  it('takes the answer from another server on the same store', async () => {
    const store = new InMemoryEventStore();
    const first = await connectInProcess({ approvePlans: true, store });
    const session_id = await validatedBranch(first);
    expect((await first.ok<Pending>('think_export_plan', { session_id, branch_id: 'br0' })).status).toBe('approval_pending');
    const second = await connectInProcess({ engine: new SessionEngine({ store, writerId: 'second' }) });
    await second.ok('think_answer', { session_id, question_id: 'branch/br0#approve', answer: '{"approved": true}' });
    const exported = await first.ok<{ _got_metadata: unknown }>('think_export_plan', { session_id, branch_id: 'br0' });
    expect(exported._got_metadata).toMatchObject({ branch_id: 'br0' });
  });

  it('refuses an answer that does not fit, recording nothing', async () => {
    const s = await connectInProcess({ approvePlans: true });
    const session_id = await validatedBranch(s);
    const refused = errorText(await s.call('think_answer', { session_id, question_id: 'branch/br0#approve', answer: { approved: 'sure' } }));
    expect(refused).toMatch(/^INVALID_ARGUMENT: /);
    expect((await s.ok<Pending>('think_export_plan', { session_id, branch_id: 'br0' })).status).toBe('approval_pending');
  });

  it('refuses a question id the session does not have, listing the pending ones', async () => {
    const s = await connectInProcess({ approvePlans: true });
    const session_id = await validatedBranch(s);
    const refused = errorText(await s.call('think_answer', { session_id, question_id: 'branch/br7#approve', answer: { approved: true } }));
    expect(refused).toContain('branch/br0#approve');
  });

  it('exports without asking when the server does not ask for approval', async () => {
    const user = answering({ action: 'accept', content: { approved: false } });
    const s = await connectInProcess({ ...user.options, approvePlans: false });
    const session_id = await validatedBranch(s);
    const exported = await s.ok<{ _got_metadata: unknown }>('think_export_plan', { session_id, branch_id: 'br0' });
    expect(exported._got_metadata).toMatchObject({ branch_id: 'br0' });
    expect(user.requests).toEqual([]);
  });
});
