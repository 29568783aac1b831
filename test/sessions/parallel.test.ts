import { describe, expect, it } from 'vitest';
import { callModel, InMemoryEventStore, type LanguageModel } from '../../src/index.js';
import { SessionEngine, type BranchWorker, type AgentSession, type ParallelEvent } from '../../src/sessions/index.js';
import { mockModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

const plan = (coverage = 0.9, maxChanges = 40) => ({ rollback: { strategy: 'git_revert' }, limits: { max_changes: maxChanges, max_files: 2 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'], risk_estimate: { test_coverage: coverage }, context_sufficiency: { unresolved_symbol_rate: 0.02 } });
const badPlan = { rollback: { strategy: 'pray' }, limits: { max_changes: 10 } };

/**
 * Rejected plans (rollback `pray`) of known rewards, on a branch with no tokens spent (cost 0, so
 * the cost term is 0.2; history prior 0.5, so 0.05): reward = 0.4·completeness + 0.3·(1 − risk) + 0.25,
 * risk = 0.3·scope + 0.3·(1 − coverage) + 0.2·unknown symbols + 0.2·0.5.
 */
const rejected = {
  // Complete (dry_run defaulted), scope 0, coverage 1, unknown 0: risk 0.1 → 0.4 + 0.27 + 0.25 = 0.92.
  A: { rollback: { strategy: 'pray' }, limits: { max_changes: 0, max_files: 0 }, capabilities_required: [], success_criteria: ['tests pass'], risk_estimate: { test_coverage: 1 }, context_sufficiency: { unresolved_symbol_rate: 0 } },
  // As A with coverage 0: risk 0.4 → 0.4 + 0.18 + 0.25 = 0.83.
  B: { rollback: { strategy: 'pray' }, limits: { max_changes: 0, max_files: 0 }, capabilities_required: [], success_criteria: ['tests pass'], risk_estimate: { test_coverage: 0 }, context_sufficiency: { unresolved_symbol_rate: 0 } },
  // dry_run and rollback of 5 fields: completeness 0.4; scope 0.2 (defaults), coverage 0, unknown 1: risk 0.66 → 0.16 + 0.102 + 0.25 = 0.512.
  C: { rollback: { strategy: 'pray' } },
  // dry_run only: completeness 0.2, risk 0.66 → 0.08 + 0.102 + 0.25 = 0.432.
  D: {},
};
const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
});

async function session(branches: string[], engineOptions: Partial<ConstructorParameters<typeof SessionEngine>[0]> = {}, budget = {}): Promise<{ s: AgentSession; engine: SessionEngine; ids: string[] }> {
  const engine = new SessionEngine({ store: new InMemoryEventStore(), writerId: 'w', ...engineOptions });
  const s = await engine.startSession({ goal: 'Speed up config loading', successCriteria: ['p95 under 5 ms'], budget });
  const t = await s.addThought({ role: 'planner', content: 'Cache the parsed config.' });
  const forked = await s.fork({ from: t.id, branches: branches.map((name) => ({ name })) });
  return { s, engine, ids: forked.map((b) => b.id) };
}

/** A model that answers after `ms` unless aborted, counting the calls aborted in flight. */
function slowModel() {
  const counts = { calls: 0, aborted: 0 };
  const model: LanguageModel = {
    modelId: 'slow',
    async generate(request, options) {
      counts.calls += 1;
      const ms = Number(/wait (\d+)/.exec(request.messages[0]!.content)?.[1] ?? 0);
      try {
        await sleep(ms, options?.signal);
      } catch (error) {
        counts.aborted += 1;
        throw error;
      }
      return { outputs: ['ok'], usage: { inputTokens: 10, outputTokens: 5 } };
    },
  };
  return { model, counts };
}

describe('runParallel: race', () => {
  it('makes the first branch to validate the winner, aborts the others\' calls in flight and records them race_lost', async () => {
    const { s, ids } = await session(['slow', 'fast', 'medium']);
    const waits: Record<string, number> = { slow: 300, fast: 20, medium: 200 };
    const { model, counts } = slowModel();
    const worker: BranchWorker = async (branch, ctx) => {
      await callModel(ctx.model!, { messages: [{ role: 'user', content: `wait ${waits[branch.name]}` }] }, { signal: ctx.signal });
      return { thoughts: [{ content: `${branch.name} plan` }], plan: plan() };
    };
    const started = Date.now();
    const out = await s.runParallel({ branchIds: ids, strategy: 'race', worker, model });
    expect(Date.now() - started).toBeLessThan(250);
    expect(out.winner?.name).toBe('fast');
    expect(out.stopReason).toBe('decided');
    expect(counts).toEqual({ calls: 3, aborted: 2 });
    const byName = Object.fromEntries(out.branches.map((b) => [b.name, b]));
    expect(byName.fast!.state).toBe('validated');
    expect([byName.slow!.state, byName.slow!.earlyStopReason]).toEqual(['early_stopped', 'fast validated first'.replace('fast', ids[1]!)]);
    expect(byName.medium!.state).toBe('early_stopped');
    expect(s.branch(ids[0]!)!.history.at(-1)).toMatchObject({ trigger: 'race_lost', to: 'early_stopped' });
    // The winner's round cost what its model call reported.
    expect(byName.fast!.tokens).toBe(15);
  });

  it('does not wait for a loser whose worker ignores its signal', async () => {
    const { s, ids } = await session(['deaf', 'quick']);
    const worker: BranchWorker = async (b) => {
      if (b.name === 'deaf') await sleep(2_000);
      return { plan: plan() };
    };
    const started = Date.now();
    const out = await s.runParallel({ branchIds: ids, strategy: 'race', worker });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(out.winner?.name).toBe('quick');
    expect(out.branches.find((b) => b.name === 'deaf')!.state).toBe('early_stopped');
  });

  it('lets exactly one of branches that validate at the same moment win; the others are stopped', async () => {
    const { s, ids } = await session(['a', 'b', 'c']);
    const out = await s.runParallel({ branchIds: ids, strategy: 'race', worker: () => ({ thoughts: [{ content: 'plan' }], plan: plan() }) });
    expect(out.branches.filter((b) => b.state === 'validated')).toHaveLength(1);
    expect(out.branches.filter((b) => b.state === 'early_stopped' && b.earlyStopReason === `${out.winner!.id} validated first`)).toHaveLength(2);
  });

  it('counts what a loser\'s calls spent before it was stopped', async () => {
    const { s, ids } = await session(['loser', 'winner']);
    const model: LanguageModel = { modelId: 'm', generate: async () => ({ outputs: ['ok'], usage: { inputTokens: 100, outputTokens: 50 } }) };
    const worker: BranchWorker = async (b, ctx) => {
      await callModel(ctx.model!, { messages: [{ role: 'user', content: 'x' }] }, { signal: ctx.signal });
      if (b.name === 'loser') await sleep(500, ctx.signal);
      return { thoughts: [{ content: b.name }], plan: plan() };
    };
    const out = await s.runParallel({ branchIds: ids, strategy: 'race', worker, model });
    expect(out.branches.map((b) => [b.name, b.tokens])).toEqual([['loser', 150], ['winner', 150]]);
  });

  it('gives a rejected branch another round with the critic\'s issues', async () => {
    const { s, ids } = await session(['only']);
    const seen: string[][] = [];
    const worker: BranchWorker = (_b, ctx) => (seen.push(ctx.issues), { plan: ctx.round === 1 ? badPlan : plan() });
    const out = await s.runParallel({ branchIds: ids, strategy: 'race', worker });
    expect(out.winner?.id).toBe(ids[0]);
    expect(seen[0]).toEqual([]);
    expect(seen[1]!.join(' ')).toContain('rollback.strategy');
    expect(out.branches[0]!.rounds).toBe(2);
  });

  it('settles within a second when aborted, with ABORTED', async () => {
    const { s, ids } = await session(['a', 'b']);
    const controller = new AbortController();
    const worker: BranchWorker = async (_b, ctx) => (await sleep(10_000, ctx.signal), { plan: plan() });
    const done = s.runParallel({ branchIds: ids, worker, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await settlesWithin(catchTotError(() => done, 'ABORTED'));
  });
});

describe('runParallel: best, vote, bandit', () => {
  it('best: lets every branch finish and picks the highest reward', async () => {
    const { s, ids } = await session(['low', 'high', 'mid']);
    const coverage: Record<string, number> = { low: 0.2, high: 0.95, mid: 0.6 };
    const out = await s.runParallel({ branchIds: ids, strategy: 'best', worker: (b) => ({ plan: plan(coverage[b.name]) }) });
    expect(out.winner?.name).toBe('high');
    expect(out.branches.map((b) => b.state)).toEqual(['validated', 'validated', 'validated']);
    const rewards = out.branches.map((b) => b.reward!);
    expect(rewards[1]).toBeGreaterThan(rewards[2]!);
    expect(rewards[2]).toBeGreaterThan(rewards[0]!);
  });

  it('vote: the answer most branches give wins, the higher reward among them', async () => {
    const { s, ids } = await session(['a1', 'b', 'a2']);
    const answers: Record<string, string> = { a1: 'Use an LRU', b: 'Memoise', a2: '  use an lru ' };
    const coverage: Record<string, number> = { a1: 0.5, b: 0.99, a2: 0.8 };
    const out = await s.runParallel({ branchIds: ids, strategy: 'vote', worker: (br) => ({ answer: answers[br.name], plan: plan(coverage[br.name]) }) });
    expect(out.votes).toEqual({ 'use an lru': 2, memoise: 1 });
    expect(out.winner?.name).toBe('a2');
  });

  it('bandit: tries each branch once, then the branch of the highest UCB, and stops at the first that validates', async () => {
    const { s, ids } = await session(['x', 'y', 'z']);
    const script: Record<string, unknown[]> = { x: [rejected.A, rejected.B], y: [rejected.C, plan()], z: [rejected.D] };
    const order: string[] = [];
    const worker: BranchWorker = (b, ctx) => (order.push(`${b.name}${ctx.round}`), { plan: script[b.name]![ctx.round - 1] });
    const out = await s.runParallel({ branchIds: ids, strategy: 'bandit', worker });
    // UCB = mean + √2·√(ln N / n).
    // After the sweep (N = 3, n = 1 each, √2·√(ln 3) = 1.4823): x 0.92 + 1.4823 = 2.4023,
    // y 0.512 + 1.4823 = 1.9943, z 0.432 + 1.4823 = 1.9143 → x.
    // After x2 (0.83; N = 4): x (0.92 + 0.83) / 2 + √2·√(ln 4 / 2) = 0.875 + 1.1774 = 2.0524,
    // y 0.512 + √2·√(ln 4) = 0.512 + 1.6651 = 2.1771, z 0.432 + 1.6651 = 2.0971 → y, although x has
    // the higher mean and the higher last reward: it was tried less. y2 validates and wins.
    expect(order).toEqual(['x1', 'y1', 'z1', 'x2', 'y2']);
    expect([out.branches[0]!.reward, out.branches[2]!.reward].map((r) => r!.toFixed(3))).toEqual(['0.830', '0.432']);
    expect(out.winner?.name).toBe('y');
    expect(out.stopReason).toBe('decided');
  });

  it('bandit: when no branch validates, names the branch with the highest latest reward', async () => {
    const { s, ids } = await session(['x', 'y', 'z']);
    // Latest rewards: x 0.512, y 0.83, z 0.432; means: x (0.92 + 0.512) / 2 = 0.716, y (0.432 + 0.83) / 2 = 0.631.
    const script: Record<string, unknown[]> = { x: [rejected.A, rejected.C], y: [rejected.D, rejected.B], z: [rejected.D, rejected.D] };
    const worker: BranchWorker = (b, ctx) => ({ plan: script[b.name]![ctx.round - 1] });
    const out = await s.runParallel({ branchIds: ids, strategy: 'bandit', worker, maxRounds: 2 });
    expect(out.branches.map((b) => [b.name, b.rounds, b.state])).toEqual([['x', 2, 'rejected'], ['y', 2, 'rejected'], ['z', 2, 'rejected']]);
    expect(out.stopReason).toBe('decided');
    expect(out.winner?.name).toBe('y');
    expect(out.winner?.reward).toBeCloseTo(0.83, 12);
  });

  it('bandit: stops when 90% of the session\'s tokens are used, and names the branch with the highest reward', async () => {
    const { s, ids } = await session(['a', 'b'], {}, { maxTokens: 1000 });
    // Each round costs 300 tokens; the root thought cost 8 (24 characters). a1 (308), b1 (608), then
    // a again (mean 0.89 against 0.402: same pulls), a2 (908): over 90%, so no third round.
    // Rewards with cost: a after a2 (600 tokens) 0.4 + 0.27 + 0.2·(1 − 600/2000) + 0.05 = 0.86;
    // b after b1 (300 tokens) 0.08 + 0.102 + 0.2·(1 − 300/2000) + 0.05 = 0.402.
    const worker: BranchWorker = (b) => ({ thoughts: [{ content: 'thinking hard', tokens: 300 }], plan: b.name === 'a' ? rejected.A : rejected.D });
    const out = await s.runParallel({ branchIds: ids, strategy: 'bandit', worker, maxRounds: 10 });
    expect(out.stopReason).toBe('session_budget');
    expect(out.branches.map((b) => [b.name, b.rounds, b.reward?.toFixed(3), b.state, b.earlyStopReason])).toEqual([
      ['a', 2, '0.860', 'early_stopped', 'the session budget is 90% used'],
      ['b', 1, '0.402', 'early_stopped', 'the session budget is 90% used'],
    ]);
    expect(out.winner?.name).toBe('a');
  });

  it('bandit: stops when the run\'s budget is spent, and names the branch with the highest reward', async () => {
    const { s, ids } = await session(['a', 'b']);
    const model: LanguageModel = { modelId: 'm', generate: async () => ({ outputs: ['ok'], usage: { inputTokens: 10, outputTokens: 5 } }) };
    // One call a round, two calls allowed: a1 (about 0.51) and b1 (about 0.92), then b2, whose call
    // is refused: the run halts with b2 begun (b back in planning) and b's reward of b1 standing.
    const worker: BranchWorker = async (b, ctx) => {
      await callModel(ctx.model!, { messages: [{ role: 'user', content: 'x' }] }, { signal: ctx.signal });
      return { thoughts: [{ content: `${b.name} thinks` }], plan: b.name === 'a' ? rejected.C : rejected.A };
    };
    const decided: ParallelEvent[] = [];
    const out = await s.runParallel({ branchIds: ids, strategy: 'bandit', worker, model, budget: { maxCalls: 2 }, onEvent: (e) => e.type === 'parallel.decided' && decided.push(e) });
    expect(out.stopReason).toBe('budget_exceeded');
    expect(out.branches.map((b) => [b.name, b.rounds, b.state])).toEqual([['a', 1, 'rejected'], ['b', 2, 'planning']]);
    expect(out.winner?.name).toBe('b');
    // The decision says why the run stopped, as the result does.
    expect(decided).toMatchObject([{ type: 'parallel.decided', strategy: 'bandit', winner: ids[1], reason: 'budget_exceeded' }]);
  });

  it('stops early, under best, at a validated branch complete with risk under 0.2 (the quality rule)', async () => {
    const { s, ids } = await session(['great', 'slow']);
    const great = { ...plan(1, 0), limits: { max_changes: 0, max_files: 0 }, context_sufficiency: { unresolved_symbol_rate: 0 } };
    const worker: BranchWorker = async (b, ctx) => {
      if (b.name === 'slow') await sleep(50, ctx.signal);
      return { plan: b.name === 'great' ? great : badPlan };
    };
    const out = await s.runParallel({ branchIds: ids, strategy: 'best', worker, maxRounds: 5 });
    expect(out.stopReason).toBe('quality');
    expect(out.winner?.name).toBe('great');
    expect(out.branches.find((b) => b.name === 'slow')!.rounds).toBeLessThan(5);
  });

  it('stops, under best, once two validated branches are about as good as each other (the convergence rule)', async () => {
    const { s, ids } = await session(['a', 'b', 'never']);
    const worker: BranchWorker = async (b, ctx) => {
      if (b.name === 'never') await sleep(5, ctx.signal);
      return { plan: b.name === 'never' ? badPlan : plan() };
    };
    const out = await s.runParallel({ branchIds: ids, strategy: 'best', worker, maxRounds: 20 });
    expect(out.stopReason).toBe('converged');
    expect(out.winner?.name).toBe('a');
    expect(out.branches.find((b) => b.name === 'never')!.rounds).toBeLessThan(20);
  });

  it('stops when 90% of the session\'s tokens are used, recording the unfinished branches budget_exceeded', async () => {
    const { s, ids } = await session(['a', 'b'], {}, { maxTokens: 1000 });
    // a spends 460 tokens a round, b nothing: after a's second round 92.6% of the budget is used.
    const worker: BranchWorker = (b) => ({ thoughts: [{ content: 'thinking hard', tokens: b.name === 'a' ? 460 : 0 }], plan: badPlan });
    const out = await s.runParallel({ branchIds: ids, strategy: 'best', worker, maxRounds: 10 });
    expect(out.stopReason).toBe('session_budget');
    expect(out.branches.map((b) => b.state)).toEqual(['early_stopped', 'early_stopped']);
    // No branch validated: the higher reward wins, b's (the same plan, and it spent nothing).
    expect(out.winner?.name).toBe('b');
  });

  it('best: when no branch validates, names the branch with the highest latest reward', async () => {
    const { s, ids } = await session(['c', 'a', 'd']);
    const script: Record<string, unknown> = { c: rejected.C, a: rejected.A, d: rejected.D };
    const out = await s.runParallel({ branchIds: ids, strategy: 'best', worker: (b) => ({ plan: script[b.name] }), maxRounds: 1 });
    expect(out.branches.map((b) => [b.name, b.state, b.reward!.toFixed(3)])).toEqual([['c', 'rejected', '0.512'], ['a', 'rejected', '0.920'], ['d', 'rejected', '0.432']]);
    expect(out.stopReason).toBe('decided');
    expect(out.winner?.name).toBe('a');
  });

  it('best: a validated branch beats a rejected one of a higher reward', async () => {
    const { s, ids } = await session(['rejected', 'valid']);
    const out = await s.runParallel({ branchIds: ids, strategy: 'best', worker: (b) => ({ plan: b.name === 'valid' ? plan() : rejected.A }), maxRounds: 1 });
    // plan(): risk 0.3·0.08 + 0.3·0.1 + 0.2·0.4 + 0.1 = 0.234 → 0.4 + 0.3·0.766 + 0.25 = 0.8798 < 0.92.
    expect(out.branches.map((b) => b.reward!.toFixed(4))).toEqual(['0.9200', '0.8798']);
    expect(out.winner?.name).toBe('valid');
  });
});

describe('runParallel: workers and models', () => {
  it('records a worker\'s failure on its branch, and rejects a strict run with it', async () => {
    const { s, ids } = await session(['broken', 'fine']);
    const worker: BranchWorker = (b) => {
      if (b.name === 'broken') throw new Error('worker crashed');
      return { plan: plan() };
    };
    const out = await s.runParallel({ branchIds: ids, strategy: 'best', worker });
    expect(out.winner?.name).toBe('fine');
    expect(out.errors).toMatchObject([{ message: 'worker crashed', where: { kind: 'branch', branchId: ids[0] } }]);
    const again = await session(['broken']);
    await catchTotError(() => again.s.runParallel({ branchIds: again.ids, worker, strict: true }), 'INTERNAL');
  });

  it('plans with the model by default; after a rejection the critic is a model call, and the planner revises with its critique', async () => {
    const critique = 'The rollback strategy "pray" does not exist: roll back with git_revert.';
    const model = mockModel([JSON.stringify({ summary: 'LRU cache', plan: badPlan }), critique, JSON.stringify({ summary: 'LRU cache, revised', plan: plan() })]);
    const { s, ids } = await session(['lru'], { model });
    const out = await s.runParallel({ branchIds: ids, strategy: 'race' });
    expect(out.winner?.id).toBe(ids[0]);
    expect(model.callCount).toBe(3);
    // The critic reads the rejected plan and what validation found.
    expect(model.prompts()[1]).toContain('"strategy":"pray"');
    expect(model.prompts()[1]).toContain('Validation found: rollback.strategy');
    expect(model.prompts()[2]).toContain(`Critic: ${critique}`);
    const thoughts = s.branch(ids[0]!)!.thoughtIds.map((id) => s.thought(id)!);
    expect(thoughts.map((t) => [t.role, t.content])).toEqual([['planner', 'LRU cache'], ['critic', critique], ['planner', 'LRU cache, revised']]);
  });

  it('records each of the default worker\'s model calls on the thought it made, with what it cost', async () => {
    const replies = [JSON.stringify({ summary: 'LRU cache', plan: badPlan }), 'Use git_revert.', JSON.stringify({ summary: 'LRU cache, revised', plan: plan() })];
    const model = mockModel(replies, { usage: { inputTokens: 100, outputTokens: 20 } });
    const { s, ids } = await session(['lru'], { model });
    const out = await s.runParallel({ branchIds: ids, strategy: 'race' });
    const thoughts = s.branch(ids[0]!)!.thoughtIds.map((id) => s.thought(id)!);
    expect(thoughts.map((t) => [t.role, t.tokens, t.modelCalls])).toEqual([['planner', 120, 1], ['critic', 120, 1], ['planner', 120, 1]]);
    expect(out.stats.inputTokens + out.stats.outputTokens).toBe(360);
  });

  it('keeps the default worker\'s thoughts within the session\'s maxThoughtChars', async () => {
    const long = (what: string) => `${what} ${'and then some more detail '.repeat(6)}`;
    const model = mockModel([JSON.stringify({ summary: long('LRU cache'), plan: badPlan }), long('Use git_revert.'), JSON.stringify({ summary: long('LRU, revised'), plan: plan() })]);
    const { s, ids } = await session(['lru'], { model, limits: { maxThoughtChars: 40 } });
    const out = await s.runParallel({ branchIds: ids, strategy: 'race' });
    expect(out.errors).toEqual([]);
    expect(out.winner?.id).toBe(ids[0]);
    const contents = s.branch(ids[0]!)!.thoughtIds.map((id) => s.thought(id)!.content);
    expect(contents.map((c) => [c.length, c.at(-1)])).toEqual([[40, '…'], [40, '…'], [40, '…']]);
    expect(contents[1]).toMatch(/^Use git_revert\. and then/);
  });

  it('keeps the default worker\'s output in a round within roundTokens: the critic a quarter, the planner the rest', async () => {
    const replies = [JSON.stringify({ summary: 'LRU cache', plan: badPlan }), 'Use git_revert.', JSON.stringify({ summary: 'LRU cache, revised', plan: plan() })];
    const model = mockModel(replies, { usage: { inputTokens: 100, outputTokens: 20 } });
    const { s, ids } = await session(['lru'], { model });
    await s.runParallel({ branchIds: ids, strategy: 'race', roundTokens: 120 });
    // Round 1: the planner 120. Round 2: the critic ⌊120 / 4⌋ = 30, the planner 120 − 20 (what the critic wrote) = 100.
    expect(model.calls.map((c) => c.request.maxOutputTokens)).toEqual([120, 30, 100]);
  });

  it('treats roundTokens as the worker\'s allowance: a round that spends more is recorded at what it cost, not cut off', async () => {
    const { s, ids } = await session(['big']);
    const model: LanguageModel = { modelId: 'm', generate: async () => ({ outputs: ['ok'], usage: { inputTokens: 100, outputTokens: 50 } }) };
    const rounds: ParallelEvent[] = [];
    const worker: BranchWorker = async (_b, ctx) => {
      for (let i = 0; i < 2; i++) await callModel(ctx.model!, { messages: [{ role: 'user', content: 'x' }], maxOutputTokens: ctx.roundTokens }, { signal: ctx.signal });
      return { thoughts: [{ content: 'two calls' }], plan: plan() };
    };
    const out = await s.runParallel({ branchIds: ids, strategy: 'race', worker, model, roundTokens: 50, onEvent: (e) => e.type === 'branch.round.completed' && rounds.push(e) });
    expect(out.winner?.id).toBe(ids[0]);
    expect(out.branches[0]!.tokens).toBe(300);
    expect(rounds).toMatchObject([{ type: 'branch.round.completed', tokens: 300 }]);
    const thought = s.thought(s.branch(ids[0]!)!.thoughtIds[0]!)!;
    expect([thought.tokens, thought.modelCalls]).toEqual([300, 2]);
  });

  it('records a round whose worker spent tokens but gave no thought, so that the session holds what it cost', async () => {
    const { s, ids } = await session(['quiet']);
    const model: LanguageModel = { modelId: 'm', generate: async () => ({ outputs: ['ok'], usage: { inputTokens: 100, outputTokens: 50 } }) };
    const worker: BranchWorker = async (_b, ctx) => (await callModel(ctx.model!, { messages: [{ role: 'user', content: 'x' }] }, { signal: ctx.signal }), { plan: plan() });
    const before = s.snapshot().tokensUsed;
    await s.runParallel({ branchIds: ids, strategy: 'race', worker, model });
    const [thought] = s.branch(ids[0]!)!.thoughtIds.map((id) => s.thought(id)!);
    expect(thought).toMatchObject({ role: 'planner', content: 'Round 1 of quiet: a plan.', tokens: 150, modelCalls: 1 });
    expect(s.snapshot().tokensUsed - before).toBe(150);
  });

  it('records a round whose planner\'s reply does not parse: the critique and both calls reach the session\'s tokens and model hops', async () => {
    const replies = [JSON.stringify({ summary: 'LRU cache', plan: badPlan }), 'Use git_revert.', 'Sure! Here is the plan: roll back with git.'];
    const model = mockModel(replies, { usage: { inputTokens: 100, outputTokens: 20 } });
    const { s, ids } = await session(['lru'], { model });
    const before = s.snapshot().tokensUsed;
    const out = await s.runParallel({ branchIds: ids, strategy: 'race', maxRounds: 2 });
    expect(out.errors).toMatchObject([{ code: 'INVALID_FORMAT', where: { kind: 'branch', branchId: ids[0] } }]);
    expect(out.stats.inputTokens + out.stats.outputTokens).toBe(360);
    const thoughts = s.branch(ids[0]!)!.thoughtIds.map((id) => s.thought(id)!);
    expect(thoughts.map((t) => [t.role, t.tokens, t.modelCalls])).toEqual([['planner', 120, 1], ['critic', 120, 1], ['planner', 120, 1]]);
    expect(thoughts[1]!.content).toBe('Use git_revert.');
    expect(thoughts[2]!.content).toMatch(/^Round 2 of lru failed: Branch \S+: the planner's reply is not a plan/);
    // The session holds what the run spent: its budget and TPST see every call.
    expect(s.snapshot().tokensUsed - before).toBe(360);
    expect(s.metrics().modelHops).toBe(3);
  });

  it('records the calls of a custom worker\'s round that threw', async () => {
    const { s, ids } = await session(['flaky']);
    const model: LanguageModel = { modelId: 'm', generate: async () => ({ outputs: ['ok'], usage: { inputTokens: 30, outputTokens: 10 } }) };
    const worker: BranchWorker = async (_b, ctx) => {
      for (let i = 0; i < 2; i++) await callModel(ctx.model!, { messages: [{ role: 'user', content: 'x' }] }, { signal: ctx.signal });
      throw new Error('the tool crashed');
    };
    const before = s.snapshot().tokensUsed;
    const out = await s.runParallel({ branchIds: ids, strategy: 'race', worker, model, maxRounds: 1 });
    expect(out.errors).toMatchObject([{ message: 'the tool crashed' }]);
    const thoughts = s.branch(ids[0]!)!.thoughtIds.map((id) => s.thought(id)!);
    expect(thoughts.map((t) => [t.role, t.content, t.tokens, t.modelCalls])).toEqual([['planner', 'Round 1 of flaky failed: the tool crashed', 80, 2]]);
    expect(s.snapshot().tokensUsed - before).toBe(80);
  });

  it('clips the thought it writes for a round without cutting a character in half', async () => {
    const engine = new SessionEngine({ store: new InMemoryEventStore(), writerId: 'w', limits: { maxThoughtChars: 13 } });
    const s = await engine.startSession({ goal: 'g' });
    const root = await s.addThought({ role: 'planner', content: 'root' });
    // 'Round 1 of ' is 11 units: at 13, the old cut kept 12, the first half of the emoji.
    const [b] = await s.fork({ from: root.id, branches: [{ name: '😀😀' }] });
    const model: LanguageModel = { modelId: 'm', generate: async () => ({ outputs: ['ok'], usage: { inputTokens: 1, outputTokens: 1 } }) };
    const worker: BranchWorker = async (_b, ctx) => (await callModel(ctx.model!, { messages: [{ role: 'user', content: 'x' }] }, { signal: ctx.signal }), { plan: plan() });
    await s.runParallel({ branchIds: [b!.id], strategy: 'race', worker, model });
    const [thought] = s.branch(b!.id)!.thoughtIds.map((id) => s.thought(id)!);
    expect(thought!.content).toBe('Round 1 of …');
  });

  it('pays each thought the model calls it claims, and the rest to the first thought that states neither', async () => {
    const { s, ids } = await session(['split']);
    let n = 0;
    // Calls cost 10, 20, 30 and 40 tokens, in order.
    const model: LanguageModel = { modelId: 'm', generate: async () => ((n += 1), { outputs: ['ok'], usage: { inputTokens: n * 10, outputTokens: 0 } }) };
    const worker: BranchWorker = async (_b, ctx) => {
      for (let i = 0; i < 4; i++) await callModel(ctx.model!, { messages: [{ role: 'user', content: 'x' }] }, { signal: ctx.signal });
      return { thoughts: [{ content: 'two calls', modelCalls: 2 }, { content: 'by hand', tokens: 5 }, { content: 'the rest' }, { content: 'one call', modelCalls: 1 }], plan: plan(), tokens: 7 };
    };
    await s.runParallel({ branchIds: ids, strategy: 'race', worker, model });
    const thoughts = s.branch(ids[0]!)!.thoughtIds.map((id) => s.thought(id)!);
    // 'two calls' 10 + 20; 'one call' the third (30); 'the rest' the fourth (40) and the worker's own 7.
    expect(thoughts.map((t) => [t.content, t.tokens, t.modelCalls])).toEqual([['two calls', 30, 2], ['by hand', 5, undefined], ['the rest', 47, 1], ['one call', 30, 1]]);
  });

  it('refuses an unknown branch, and a run without a worker or a model', async () => {
    const { s, ids } = await session(['a']);
    await catchTotError(() => s.runParallel({ branchIds: ['br9'], worker: () => ({}) }), 'INVALID_ARGUMENT');
    await catchTotError(() => s.runParallel({ branchIds: ids }), 'INVALID_ARGUMENT');
  });
});
