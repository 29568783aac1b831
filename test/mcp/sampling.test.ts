// think_parallel_run through MCP sampling, in process, as the client sees the protocol: a sampling
// request still in flight when the run no longer needs it (the race is decided) is cancelled, and
// one the client has answered never is (the MCP specification: a cancellation names a request
// "believed to still be in progress").
import { CreateMessageRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { planReply, validPlan } from '../helpers/mcp-sampling.js';
import { closeInProcess, connectInProcess, type InProcess } from './in-process.js';

afterEach(closeInProcess);

type Run = { status: string; planner: string; winner?: { branch_id: string }; branches: { branch_id: string; state: string }[] };

const cancellations = (sent: JSONRPCMessage[]) => sent.filter((m): m is JSONRPCMessage & { method: string; params: { requestId: number } } => 'method' in m && m.method === 'notifications/cancelled');
const samplingIds = (sent: JSONRPCMessage[]) => sent.filter((m) => 'method' in m && m.method === 'sampling/createMessage').map((m) => (m as { id: number }).id);

async function twoBranches(s: InProcess) {
  const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal: 'Cut cold start time', budget: { max_branches: 4 } });
  await s.ok('think_plan_step', { session_id, content: 'root' });
  await s.ok('think_branch_fork', { session_id, from: 't0', names: ['fast', 'slow'] });
  return session_id;
}

describe('think_parallel_run through sampling: cancellations', () => {
  it('sends no cancellation for the sampling requests its client answered', async () => {
    const s = await connectInProcess({
      sampling: true,
      setup: (c) =>
        c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
          const first = req.params.messages[0]?.content;
          const approach = /^Approach: (.*)$/m.exec(first && !Array.isArray(first) && first.type === 'text' ? first.text : '')?.[1] ?? '';
          return { model: 'test', role: 'assistant' as const, content: { type: 'text' as const, text: planReply(approach, validPlan(approach)) } };
        }),
    });
    const session_id = await twoBranches(s);
    const run = await s.ok<Run>('think_parallel_run', { session_id, branch_ids: ['br0', 'br1'], strategy: 'best', max_rounds: 1 });
    expect(run).toMatchObject({ status: 'completed', planner: 'sampling' });
    expect(samplingIds(s.sent)).toHaveLength(2);
    // The next call's answer comes after anything the run could still send.
    await s.ok('think_session_status', { session_id });
    expect(cancellations(s.sent)).toEqual([]);
  });

  it('cancels the loser\'s sampling request still in flight when the race is decided, and only that one', async () => {
    let slowCancelled!: () => void;
    const slowWasCancelled = new Promise<void>((resolve) => (slowCancelled = resolve));
    const s = await connectInProcess({
      sampling: true,
      setup: (c) =>
        c.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
          const first = req.params.messages[0]?.content;
          const approach = /^Approach: (.*)$/m.exec(first && !Array.isArray(first) && first.type === 'text' ? first.text : '')?.[1] ?? '';
          if (approach === 'slow') {
            // Answers only when cancelled (then with nothing the server reads).
            await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve(), { once: true }));
            slowCancelled();
          }
          return { model: 'test', role: 'assistant' as const, content: { type: 'text' as const, text: planReply(approach, validPlan(approach)) } };
        }),
    });
    const session_id = await twoBranches(s);
    const run = await s.ok<Run>('think_parallel_run', { session_id, branch_ids: ['br0', 'br1'], strategy: 'race' });
    expect(run).toMatchObject({ status: 'completed', winner: { branch_id: 'br0' } });
    expect(run.branches.find((b) => b.branch_id === 'br1')).toMatchObject({ state: 'early_stopped' });
    await slowWasCancelled;
    await s.ok('think_session_status', { session_id });
    const ids = samplingIds(s.sent);
    expect(ids).toHaveLength(2);
    const sentFor = (id: number) => s.sent.find((m) => 'id' in m && m.id === id && 'method' in m) as unknown as { params: { messages: { content: { text: string } }[] } };
    const slowId = ids.find((id) => sentFor(id).params.messages[0]!.content.text.includes('Approach: slow'))!;
    expect(cancellations(s.sent).map((c) => c.params.requestId)).toEqual([slowId]);
  });
});
