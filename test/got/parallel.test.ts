import { describe, expect, it } from 'vitest';
import { callModel, GotEngine, InMemoryEventStore, type BranchWorker, type GotSession, type LanguageModel } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { settlesWithin } from '../helpers/settles-within.js';

const plan = (coverage = 0.9, maxChanges = 40) => ({ rollback: { strategy: 'git_revert' }, limits: { max_changes: maxChanges, max_files: 2 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'], risk_estimate: { test_coverage: coverage }, context_sufficiency: { unresolved_symbol_rate: 0.02 } });
const badPlan = { rollback: { strategy: 'pray' }, limits: { max_changes: 10 } };
const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
});

async function session(branches: string[], engineOptions: Partial<ConstructorParameters<typeof GotEngine>[0]> = {}, budget = {}): Promise<{ s: GotSession; engine: GotEngine; ids: string[] }> {
  const engine = new GotEngine({ store: new InMemoryEventStore(), writerId: 'w', ...engineOptions });
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

  it('bandit: tries each branch once, then the best so far, and stops at the first that validates', async () => {
    const { s, ids } = await session(['x', 'y', 'z']);
    const order: string[] = [];
    // y validates on its second round; x and z never do.
    const worker: BranchWorker = (b, ctx) => (order.push(`${b.name}${ctx.round}`), { plan: b.name === 'y' && ctx.round === 2 ? plan() : badPlan });
    const out = await s.runParallel({ branchIds: ids, strategy: 'bandit', worker });
    expect(order.slice(0, 3)).toEqual(['x1', 'y1', 'z1']);
    expect(out.winner?.name).toBe('y');
    expect(order.at(-1)).toBe('y2');
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
    expect(out.winner).toBeUndefined();
    expect(out.branches.map((b) => b.state)).toEqual(['early_stopped', 'early_stopped']);
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
    await catchTotError(() => again.s.runParallel({ branchIds: again.ids, worker, strict: true }), 'GENERATION_FAILED');
  });

  it('plans with the model by default, and revises with the critic\'s issues after a rejection', async () => {
    const replies = [JSON.stringify({ summary: 'LRU cache', plan: badPlan }), JSON.stringify({ summary: 'LRU cache, revised', plan: plan() })];
    const model = mockModel(replies);
    const { s, ids } = await session(['lru'], { model });
    const out = await s.runParallel({ branchIds: ids, strategy: 'race' });
    expect(out.winner?.id).toBe(ids[0]);
    expect(model.prompts()[1]).toContain('Critic: rollback.strategy');
    expect(s.branch(ids[0]!)!.thoughtIds.map((id) => s.thought(id)!.role)).toEqual(['planner', 'critic', 'planner']);
    // Every token the model spent is in the session: the revision's on its planner thought.
    const branchTokens = s.branch(ids[0]!)!.thoughtIds.reduce((n, id) => n + s.thought(id)!.tokens, 0);
    expect(branchTokens).toBe(out.stats.inputTokens + out.stats.outputTokens);
    expect(s.thought(s.branch(ids[0]!)!.thoughtIds[2]!)!.tokens).toBeGreaterThan(0);
  });

  it('refuses an unknown branch, and a run without a worker or a model', async () => {
    const { s, ids } = await session(['a']);
    await catchTotError(() => s.runParallel({ branchIds: ['br9'], worker: () => ({}) }), 'INVALID_ARGUMENT');
    await catchTotError(() => s.runParallel({ branchIds: ids }), 'INVALID_ARGUMENT');
  });
});
