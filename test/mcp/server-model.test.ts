// think_parallel_run on the server's own model, the second of its three ways to work branches
// (the client's model through MCP sampling when the client declares it; else the server's model;
// else the branches go back to the client to fill): in process with createMcpServer({ engine, model })
// and a scripted model, then `tot mcp --model` spawned over stdio, its model an OpenAI-compatible
// endpoint (OPENAI_BASE_URL) served by a local HTTP server speaking the OpenAI wire format.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { answerSampling, invalidPlan, planReply, structured, validPlan } from '../helpers/mcp-sampling.js';
import { chatCompletion, lastUserMessage, startWireServer, type WireServer } from '../helpers/openai-wire-server.js';
import { ensureCli, startStdio, stopAll } from '../helpers/tot-cli.js';
import { closeInProcess, connectInProcess, errorText, type InProcess } from './in-process.js';

type Branch = { branch_id: string; name: string; state: string; rounds?: number; reward?: number };
type Run = { status: string; planner: string; stop_reason: string; winner?: Branch; branches: Branch[]; errors?: { code: string; message: string }[] };

const approachOf = (prompt: string) => /^Approach: (.*)$/m.exec(prompt)?.[1] ?? '';
const promptOf = (request: GenerateRequest) => request.messages.map((m) => m.content).join('\n');

/** A planner's prompt (the default branch worker's) for `approach`, not its critic's. */
const plannerFor = (approach: string) => (request: GenerateRequest) => promptOf(request).startsWith('You plan one approach') && approachOf(promptOf(request)) === approach;
/** The branch worker's critic (a turn after a rejection, before the revision): answered when asked, never required. */
const critic = { name: 'critic', when: /^You are the critic/, reply: 'The plan changes too many lines: keep it under 1000.' };

/** The server's model: a valid plan for `lru`, a plan over the limit for `rewrite`. */
const serverModel = () =>
  scriptedModel({
    modelId: 'server-model',
    rules: [
      { name: 'lru', when: plannerFor('lru'), reply: planReply('lru', validPlan('lru')) },
      { name: 'rewrite', when: plannerFor('rewrite'), reply: planReply('rewrite', invalidPlan('rewrite')) },
      critic,
    ],
  });

/** A session with a thought and two branches forked from it: lru (br0) and rewrite (br1). */
async function twoBranches(s: Pick<InProcess, 'ok'>) {
  const { session_id } = await s.ok<{ session_id: string }>('think_session_start', { goal: 'Cut cold start time', success_criteria: ['p95 under 50 ms'], budget: { max_branches: 4 } });
  await s.ok('think_plan_step', { session_id, content: 'Most of cold start is config parsing.' });
  await s.ok('think_branch_fork', { session_id, from: 't0', names: ['lru', 'rewrite'] });
  return session_id;
}

describe('think_parallel_run on the server\'s model, in process', () => {
  afterEach(closeInProcess);

  it('works the branches with the server\'s model when the client declares no sampling: one model call per branch and round', async () => {
    const model = serverModel();
    const s = await connectInProcess({ model });
    const session_id = await twoBranches(s);

    const run = await s.ok<Run>('think_parallel_run', { session_id, branch_ids: ['br0', 'br1'], strategy: 'best', max_rounds: '1', round_tokens: 300 });
    expect(run).toMatchObject({ status: 'completed', planner: 'server', winner: { branch_id: 'br0', name: 'lru', state: 'validated' } });
    expect(run.branches.map((b) => [b.branch_id, b.state, b.rounds])).toEqual([
      ['br0', 'validated', 1],
      ['br1', 'rejected', 1],
    ]);
    // The model was asked once per branch (one round each, so no critic's turn), with the branch's
    // approach, the goal and round_tokens as its cap.
    expect(model.callCount).toBe(2);
    expect(model.usesByRule()).toEqual({ lru: 1, rewrite: 1, critic: 0 });
    for (const call of model.calls) {
      expect(promptOf(call.request)).toContain('Goal: Cut cold start time');
      expect(promptOf(call.request)).toContain('Success criteria: p95 under 50 ms');
      expect(call.request.maxOutputTokens).toBe(300);
      expect(call.request.responseFormat).toEqual({ type: 'json' });
    }

    // What the model wrote is the session's: its summaries as the branches' thoughts, its plans as their plans.
    const { graph } = await s.ok<{ graph: { thoughts: { content: string; branchId?: string }[]; branches: { id: string; plan?: unknown; issues?: string[] }[] } }>('think_graph_export', { session_id, format: 'json' });
    expect(graph.thoughts.filter((t) => t.branchId === 'br0').map((t) => t.content)).toEqual(['lru: the approach in one line']);
    expect(graph.branches[0]!.plan).toEqual(validPlan('lru'));
    expect(graph.branches[1]!.issues?.join('; ')).toContain('max_changes may not exceed 1000');
    const exported = await s.ok<{ _got_metadata: { branch_id: string } }>('think_export_plan', { session_id, branch_id: 'br0' });
    expect(exported._got_metadata.branch_id).toBe('br0');
  });

  it('revises a rejected plan with the critic\'s issues in the next round\'s prompt', async () => {
    // rewrite's first plan is over the limit; its second, asked with the critic's issues, passes.
    const model = scriptedModel({
      rules: [
        { name: 'revise', when: (r) => plannerFor('rewrite')(r) && promptOf(r).includes('Your last plan was rejected'), reply: planReply('rewrite', validPlan('rewrite')) },
        { name: 'first', when: plannerFor('rewrite'), reply: planReply('rewrite', invalidPlan('rewrite')) },
        critic,
      ],
    });
    const s = await connectInProcess({ model });
    const session_id = await twoBranches(s);
    const run = await s.ok<Run>('think_parallel_run', { session_id, branch_ids: ['br1'], strategy: 'race', max_rounds: 3 });
    expect(run).toMatchObject({ status: 'completed', planner: 'server', winner: { branch_id: 'br1', state: 'validated' } });
    expect(model.usesByRule()).toMatchObject({ first: 1, revise: 1 });
    const revision = model.calls.find((c) => c.rule === 'revise')!;
    expect(promptOf(revision.request)).toContain('max_changes may not exceed 1000');
    expect(run.branches).toEqual([expect.objectContaining({ branch_id: 'br1', state: 'validated', rounds: 2 })]);
  });

  it('prefers the client\'s sampling to its own model under planner "auto", and uses its model under planner "server" even then', async () => {
    const model = serverModel();
    let seen!: ReturnType<typeof answerSampling>;
    const s = await connectInProcess({ model, sampling: true, setup: (c: Client) => (seen = answerSampling(c, (approach) => planReply(approach, validPlan(approach)))) });
    const session_id = await twoBranches(s);

    const sampled = await s.ok<Run>('think_parallel_run', { session_id, branch_ids: ['br0'], strategy: 'best', max_rounds: 1 });
    expect(sampled).toMatchObject({ planner: 'sampling', winner: { branch_id: 'br0' } });
    expect(seen.map((x) => x.approach)).toEqual(['lru']);
    expect(model.callCount).toBe(0);

    const served = await s.ok<Run>('think_parallel_run', { session_id, branch_ids: ['br1'], strategy: 'best', max_rounds: 1, planner: 'server' });
    expect(served).toMatchObject({ planner: 'server', branches: [{ branch_id: 'br1', state: 'rejected' }] });
    expect(model.usesByRule()).toMatchObject({ lru: 0, rewrite: 1 });
    expect(seen).toHaveLength(1);
  });

  it('refuses planner "server" on a server without a model, saying to start it with --model or send "auto" or "client"', async () => {
    const s = await connectInProcess();
    const session_id = await twoBranches(s);
    expect(errorText(await s.call('think_parallel_run', { session_id, branch_ids: ['br0'], planner: 'server' }))).toMatch(/this server has no model \(start it with --model\); send planner "auto" or "client"/);
    // Nothing ran.
    const status = await s.ok<{ branches: Branch[] }>('think_session_status', { session_id });
    expect(status.branches.map((b) => b.state)).toEqual(['init', 'init']);
  });
});

describe('tot mcp --model, over stdio, its model an OpenAI-compatible endpoint on 127.0.0.1', () => {
  let wire: WireServer;
  let dir: string;

  beforeAll(async () => {
    await ensureCli();
    // The chat completions endpoint: the branch's plan, by the Approach line of the prompt.
    wire = await startWireServer((request) => {
      const approach = approachOf(lastUserMessage(request));
      const plan = approach === 'rewrite' ? invalidPlan(approach) : validPlan(approach);
      return { json: chatCompletion([planReply(approach, plan)], { usage: { prompt_tokens: 120, completion_tokens: 80 }, model: 'wire-model' }) };
    });
  }, 180_000);

  afterAll(async () => {
    await wire?.close();
  });

  afterEach(async () => {
    await stopAll();
    wire.reset();
    rmSync(dir, { recursive: true, force: true });
  });

  it('plans the branches through the model it was started with, when its client offers no sampling', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tot-mcp-model-'));
    const { client } = await startStdio(['--db', join(dir, 'm.db'), '--model', 'wire-model'], { env: { OPENAI_BASE_URL: wire.url, OPENAI_API_KEY: 'sk-local-test' } });
    const call = async <T,>(name: string, args: Record<string, unknown>) => structured<T>(await client.callTool({ name, arguments: args }));
    const session_id = await twoBranches({ ok: call });

    const run = await call<Run>('think_parallel_run', { session_id, branch_ids: ['br0', 'br1'], strategy: 'best', max_rounds: 1, round_tokens: 256 });
    expect(run).toMatchObject({ status: 'completed', planner: 'server', winner: { branch_id: 'br0', name: 'lru', state: 'validated' } });
    expect(run.branches.map((b) => [b.branch_id, b.state])).toEqual([
      ['br0', 'validated'],
      ['br1', 'rejected'],
    ]);

    // Two chat completions, one per branch (one round each, so no critic's turn), to the configured
    // endpoint, with the model, the key and JSON mode.
    expect(wire.requests).toHaveLength(2);
    expect(wire.requests.map((r) => approachOf(lastUserMessage(r))).sort()).toEqual(['lru', 'rewrite']);
    for (const r of wire.requests) {
      expect(r.path).toBe('/v1/chat/completions');
      expect(r.headers.authorization).toBe('Bearer sk-local-test');
      expect(r.body).toMatchObject({ model: 'wire-model', max_tokens: 256, response_format: { type: 'json_object' } });
      expect(lastUserMessage(r)).toContain('Goal: Cut cold start time');
    }
    // The model's tokens are the session's.
    const status = await call<{ tokens_used: number }>('think_session_status', { session_id });
    expect(status.tokens_used).toBeGreaterThanOrEqual(2 * 200);
    const { digest } = await call<{ digest: string }>('think_digest', { session_id, max_tokens: 300 });
    expect(digest).toContain('Branch br0 lru: validated');
  });
});
