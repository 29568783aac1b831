// The table of docs/runs.md ("Stop reasons"), one test per row: every stop reason of every runner,
// and when it happens.
import { describe, expect, it } from 'vitest';
import {
  bfs,
  callModel,
  dfs,
  Explorer,
  fromFunction,
  InMemoryEventStore,
  mcts,
  solve,
  TotError,
  type ExplorerOptions,
  type GenerateRequest,
  type LanguageModel,
  type RunResult,
  type SearchStrategy,
  type ThoughtEvaluator,
  type ThoughtGenerator,
} from '../../src/index.js';
import { generate, OperationGraph } from '../../src/graph/index.js';
import { SessionEngine, type BranchWorker, type AgentSession } from '../../src/sessions/index.js';
import { Deliberation, llmAgent, type DeliberationHost, type HostDecision } from '../../src/deliberation/index.js';
import { FractalSolver, type FrameContext } from '../../src/fractal/index.js';
import { ChainOfThoughtNode } from '../../src/cot/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { scriptedRoles } from '../search/fixtures.js';

// ── models ────────────────────────────────────────────────────────────────────────────────────

/** A model that answers `reply(request)` at once. */
const answering = (reply: (request: GenerateRequest) => string): LanguageModel => fromFunction(async (request: GenerateRequest) => ({ outputs: [reply(request)], usage: { inputTokens: 1, outputTokens: 1 } }), { input: 'request', modelId: 'answering' });

/** A model whose every call fails with an error of its own request (a 400): the run goes on, and could not work. */
const rejecting = (): LanguageModel =>
  fromFunction(
    async () => {
      throw new TotError('GENERATION_FAILED', 'Model "rejecting" failed: HTTP 400: bad request', { details: { status: 400, retryable: false } });
    },
    { modelId: 'rejecting' },
  );

/** A model that answers only after a long while (or rejects when its call is aborted). */
const slow = (): LanguageModel =>
  fromFunction(
    (_prompt: string, { signal }) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => resolve('late'), 10_000);
        signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
      }),
    { modelId: 'slow' },
  );

/** Calls `model` through the run (as every role should), with the call's signal. */
const ask = (model: LanguageModel, options: { runModel?: ((m: LanguageModel) => LanguageModel) | undefined; signal?: AbortSignal | undefined }, content = 'go') =>
  callModel(options.runModel ? options.runModel(model) : model, { messages: [{ role: 'user', content }] }, options.signal ? { signal: options.signal } : {});

/** Runs `start` with a signal the caller aborts once the run is under way: it rejects with ABORTED and the partial result says `aborted`. */
async function expectAborted(start: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const controller = new AbortController();
  const pending = start(controller.signal);
  setTimeout(() => controller.abort(new Error('the caller gave up')), 20);
  const error = await catchTotError(() => pending, 'ABORTED');
  expect((error.details?.result as unknown as RunResult).stopReason).toBe('aborted');
}

// ── Explorer and solve() ──────────────────────────────────────────────────────────────────────

/** Roles that call `model` through the run: generation gives one candidate, evaluation scores 6. */
function modelRoles(model: LanguageModel): { generator: ThoughtGenerator; evaluator: ThoughtEvaluator } {
  return {
    generator: { generate: async ({ parent }, options = {}) => [{ content: `${parent.content}.${(await ask(model, options)).outputs[0]}` }] },
    evaluator: {
      evaluate: async ({ candidates }, options = {}) => {
        await ask(model, options);
        return { evaluations: candidates.map((c) => ({ nodeId: c.id, score: 6, confidence: 1, reasoning: '' })), ranking: [], pruningSuggestions: [] };
      },
    },
  };
}

type SearchOptions = Omit<ExplorerOptions, 'generator' | 'evaluator'> & Partial<Pick<ExplorerOptions, 'generator' | 'evaluator'>> & { verify?: (answer: string) => boolean };
type SearchRunner = (options: SearchOptions, signal?: AbortSignal) => Promise<RunResult>;

const searchRunners: Record<string, SearchRunner> = {
  Explorer: ({ verify: _v, ...options }, signal) => new Explorer({ ...scriptedRoles(), ...options }).run('R', signal ? { signal } : {}),
  'solve()': (options, signal) => solve({ problem: 'R', ...scriptedRoles(), ...options, ...(signal ? { signal } : {}) }),
};

/** A strategy that expands the root, evaluates its children and returns, without a reason. */
const oneLevel = (then: (ctx: Parameters<SearchStrategy['run']>[0], children: Awaited<ReturnType<Parameters<SearchStrategy['run']>[0]['expand']>>) => void = () => undefined): SearchStrategy => ({
  name: 'one-level',
  async run(ctx) {
    const children = await ctx.evaluate(await ctx.expand([ctx.tree.root]));
    then(ctx, children);
  },
});

for (const [name, runSearch] of Object.entries(searchRunners)) {
  describe(`${name}: stop reasons`, () => {
    it('solution_found: a node passed isSolution', async () => {
      const r = await runSearch({ maxDepth: 2, isSolution: (n) => n.content === 'B2' });
      expect(r.stopReason).toBe('solution_found');
    });

    it('solution_found: verified solutions were found, although the strategy went on to its depth (stopOnSolution: false)', async () => {
      const r = await runSearch({ maxDepth: 2, isSolution: (n) => n.content === 'B2', stopOnSolution: false });
      expect(r.stopReason).toBe('solution_found');
    });

    it('max_depth: BFS reached maxDepth without a verified solution', async () => {
      expect((await runSearch({ maxDepth: 2 })).stopReason).toBe('max_depth');
    });

    it('search_exhausted: every branch was pruned', async () => {
      expect((await runSearch({ maxDepth: 2, pruningThreshold: 9.5 })).stopReason).toBe('search_exhausted');
    });

    it('search_exhausted: a custom strategy returned and no pending node is left', async () => {
      const strategy = oneLevel((ctx, children) => children.forEach((c) => ctx.prune(c)));
      expect((await runSearch({ maxDepth: 2, strategy })).stopReason).toBe('search_exhausted');
    });

    it('completed: a custom strategy returned without a reason, pending nodes left', async () => {
      const r = await runSearch({ maxDepth: 2, strategy: oneLevel() });
      expect(r.stopReason).toBe('completed');
      expect(r.errors).toEqual([]);
    });

    it('max_states: DFS expanded maxStates nodes', async () => {
      expect((await runSearch({ maxDepth: 3, pruningThreshold: 0, strategy: dfs({ maxStates: 1 }) })).stopReason).toBe('max_states');
    });

    it('iterations: MCTS ran its iterations', async () => {
      expect((await runSearch({ maxDepth: 3, strategy: mcts({ iterations: 2 }) })).stopReason).toBe('iterations');
    });

    it('budget_exceeded: the budget refused a call', async () => {
      const r = await runSearch({ ...modelRoles(answering(() => 'x')), maxDepth: 3, budget: { maxCalls: 1 } });
      expect(r).toMatchObject({ stopReason: 'budget_exceeded', detail: { kind: 'budget', limit: 'calls' } });
    });

    it('timeout: the run reached timeoutMs', async () => {
      const r = await runSearch({ ...modelRoles(slow()), maxDepth: 3, timeoutMs: 50 });
      expect(r).toMatchObject({ stopReason: 'timeout', detail: { kind: 'time', limitMs: 50 } });
    });

    it("aborted: the caller's signal fired (the run rejects with ABORTED)", async () => {
      await expectAborted((signal) => runSearch({ ...modelRoles(slow()), maxDepth: 3 }, signal));
    });

    it('error: every model call failed with an error of its own request (the run resolves)', async () => {
      const r = await runSearch({ ...modelRoles(rejecting()), maxDepth: 3 });
      expect(r).toMatchObject({ stopReason: 'error', detail: { kind: 'error', code: 'GENERATION_FAILED' } });
    });

    it('error: a provider error after which no call can succeed (a 401) rejects with it', async () => {
      const unauthorized = fromFunction(async () => {
        throw new TotError('GENERATION_FAILED', 'Model "m" failed: HTTP 401: Incorrect API key', { details: { status: 401, retryable: false } });
      });
      const error = await catchTotError(() => runSearch({ ...modelRoles(unauthorized), maxDepth: 3 }), 'GENERATION_FAILED');
      expect((error.details?.result as unknown as RunResult).stopReason).toBe('error');
    });

    it('error: a custom strategy threw an untyped error (the run rejects with INTERNAL, the cause attached)', async () => {
      const boom = new Error('boom');
      const strategy: SearchStrategy = {
        name: 'broken',
        run: async () => {
          throw boom;
        },
      };
      const error = await catchTotError(() => runSearch({ maxDepth: 2, strategy }), 'INTERNAL');
      expect(error.cause).toBe(boom);
      expect((error.details?.result as unknown as RunResult).stopReason).toBe('error');
    });
  });
}

describe('solve(): stop reasons of its own', () => {
  it("solution_found: the host's verify accepted the answer, although the search reached its depth", async () => {
    const r = await solve({ problem: 'R', ...scriptedRoles(), maxDepth: 2, verify: (answer) => answer === 'B2' });
    expect(r.stopReason).toBe('solution_found');
  });

  it('error: a run that could not work has no solution', async () => {
    const r = await solve({ problem: 'R', ...modelRoles(rejecting()), maxDepth: 3 });
    expect(r.stopReason).toBe('error');
    expect(r.solution).toBeUndefined();
  });
});

// ── FractalSolver ─────────────────────────────────────────────────────────────────────────────

describe('FractalSolver: stop reasons', () => {
  /** think and eval functions that call `model` through the run: plan, then call a sub-goal, forever. */
  const calling = (model: LanguageModel) => ({
    think: async (ctx: FrameContext) => (await ask(model, ctx), { type: 'TODO' as const, description: 'plan' }),
    eval: async (ctx: FrameContext) => (await ask(model, ctx), { type: 'CALL' as const, description: `part ${ctx.frame.done.length}` }),
  });

  it('completed: the root frame returned its result', async () => {
    const r = await new FractalSolver({ think: () => ({ type: 'RETURN', description: 'done' }), eval: () => ({ type: 'RETURN', description: 'done' }) }).run('goal');
    expect(r).toMatchObject({ stopReason: 'completed', status: 'completed', result: 'done' });
  });

  it('max_steps: the run took maxSteps think and eval steps', async () => {
    const r = await new FractalSolver({ think: () => ({ type: 'TODO', description: 'plan' }), eval: () => ({ type: 'CALL', description: 'more' }), maxSteps: 3 }).run('goal');
    expect(r).toMatchObject({ stopReason: 'max_steps', status: 'degraded', detail: { kind: 'steps', limit: 3 } });
  });

  it('loop_detected: a frame called the same sub-goal maxRepeats times without a new result', async () => {
    const r = await new FractalSolver({
      think: (ctx) => (ctx.frame.parentId === null ? { type: 'TODO', description: 'plan' } : { type: 'RETURN', description: 'same' }),
      eval: () => ({ type: 'CALL', description: 'again' }),
      maxRepeats: 2,
    }).run('goal');
    expect(r).toMatchObject({ stopReason: 'loop_detected', status: 'failed', detail: { kind: 'loop', repeats: 2 } });
  });

  it('budget_exceeded: the budget refused a call', async () => {
    const r = await new FractalSolver({ ...calling(answering(() => 'x')), budget: { maxCalls: 2 } }).run('goal');
    expect(r).toMatchObject({ stopReason: 'budget_exceeded', status: 'degraded' });
  });

  it('timeout: the run reached timeoutMs', async () => {
    expect((await new FractalSolver({ ...calling(slow()), timeoutMs: 50 }).run('goal')).stopReason).toBe('timeout');
  });

  it("aborted: the caller's signal fired (the run rejects with ABORTED)", async () => {
    await expectAborted((signal) => new FractalSolver(calling(slow())).run('goal', { signal }));
  });

  it('error: the root frame failed (every call failed)', async () => {
    const r = await new FractalSolver(calling(rejecting())).run('goal');
    expect(r).toMatchObject({ stopReason: 'error', status: 'failed', detail: { kind: 'error', code: 'GENERATION_FAILED' } });
  });
});

// ── ChainOfThoughtNode ────────────────────────────────────────────────────────────────────────

describe('ChainOfThoughtNode: stop reasons', () => {
  const thought = (more: boolean) => JSON.stringify({ current_thinking: more ? 'thinking' : 'the answer is 8', planning: [{ description: 'Conclusion', status: more ? 'Pending' : 'Done' }], next_thought_needed: more });
  const node = (model: LanguageModel, extra: Record<string, unknown> = {}) => new ChainOfThoughtNode({ model, format: 'json', ...extra });

  it('completed: a thought concluded (next_thought_needed false)', async () => {
    const r = await node(answering(() => thought(false))).run('17 sheep, all but 9 run away');
    expect(r).toMatchObject({ stopReason: 'completed', solution: 'the answer is 8' });
  });

  it('max_thoughts: maxThoughts thoughts without a conclusion', async () => {
    const r = await node(answering(() => thought(true)), { maxThoughts: 2 }).run('p');
    expect(r).toMatchObject({ stopReason: 'max_thoughts', detail: { kind: 'thoughts', limit: 2 } });
  });

  it('budget_exceeded: the budget refused a call', async () => {
    expect((await node(answering(() => thought(true)), { budget: { maxCalls: 1 } }).run('p')).stopReason).toBe('budget_exceeded');
  });

  it('timeout: the run reached timeoutMs', async () => {
    expect((await node(slow(), { timeoutMs: 50 }).run('p')).stopReason).toBe('timeout');
  });

  it("aborted: the caller's signal fired (the run rejects with ABORTED)", async () => {
    await expectAborted((signal) => node(slow()).run('p', { signal }));
  });

  it('error: a thought failed (every call failed)', async () => {
    const r = await node(rejecting()).run('p');
    expect(r).toMatchObject({ stopReason: 'error', solution: null, errors: [{ code: 'GENERATION_FAILED', where: { kind: 'thought', thoughtNumber: 1 } }] });
  });
});

// ── OperationGraph ────────────────────────────────────────────────────────────────────────────

describe('OperationGraph: stop reasons', () => {
  type S = { v: string };
  const chain = () => {
    const g = new OperationGraph<S>();
    g.add(generate<S>({ prompt: (s) => `a:${s.v}`, parse: (text) => ({ v: text }) }), { id: 'a' });
    g.add(generate<S>({ prompt: (s) => `b:${s.v}`, parse: (text) => ({ v: text }) }), { id: 'b', after: ['a'] });
    return g;
  };

  it('completed: every operation ran', async () => {
    expect((await chain().run({ model: answering(() => 'x'), input: { v: '0' } })).stopReason).toBe('completed');
  });

  it('budget_exceeded: the budget refused a call', async () => {
    expect((await chain().run({ model: answering(() => 'x'), input: { v: '0' }, budget: { maxCalls: 1 } })).stopReason).toBe('budget_exceeded');
  });

  it('timeout: the run reached timeoutMs', async () => {
    expect((await chain().run({ model: slow(), input: { v: '0' }, timeoutMs: 50 })).stopReason).toBe('timeout');
  });

  it("aborted: the caller's signal fired (the run rejects with ABORTED)", async () => {
    await expectAborted((signal) => chain().run({ model: slow(), input: { v: '0' }, signal }));
  });

  it('error: every call failed', async () => {
    const r = await chain().run({ model: rejecting(), input: { v: '0' } });
    expect(r).toMatchObject({ stopReason: 'error', detail: { kind: 'error', code: 'GENERATION_FAILED' } });
  });
});

// ── AgentSession.runParallel ────────────────────────────────────────────────────────────────────

describe('AgentSession.runParallel: stop reasons', () => {
  const plan = (coverage = 0.9) => ({ rollback: { strategy: 'git_revert' }, limits: { max_changes: 40, max_files: 2 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'], risk_estimate: { test_coverage: coverage }, context_sufficiency: { unresolved_symbol_rate: 0.02 } });
  const great = { ...plan(1), limits: { max_changes: 0, max_files: 0 }, context_sufficiency: { unresolved_symbol_rate: 0 } };
  const badPlan = { rollback: { strategy: 'pray' }, limits: { max_changes: 10 } };

  async function session(branches: string[], budget = {}): Promise<{ s: AgentSession; ids: string[] }> {
    const engine = new SessionEngine({ store: new InMemoryEventStore(), writerId: 'w' });
    const s = await engine.startSession({ goal: 'Speed up config loading', successCriteria: ['p95 under 5 ms'], budget });
    const t = await s.addThought({ role: 'planner', content: 'Cache the parsed config.' });
    const forked = await s.fork({ from: t.id, branches: branches.map((name) => ({ name })) });
    return { s, ids: forked.map((b) => b.id) };
  }
  /** A worker that calls the run's model for each round, then proposes a passing plan. */
  const withModel = (model: LanguageModel): BranchWorker => async (_b, ctx) => {
    await callModel(ctx.model!, { messages: [{ role: 'user', content: 'go' }] }, { signal: ctx.signal });
    return { plan: plan() };
  };

  it('decided: the strategy chose its winner (race: the first branch to validate)', async () => {
    const { s, ids } = await session(['a', 'b']);
    const r = await s.runParallel({ branchIds: ids, strategy: 'race', worker: () => ({ plan: plan() }) });
    expect(r.stopReason).toBe('decided');
    expect(r.winner).toBeDefined();
  });

  it('quality: under best, a validated branch complete with risk under 0.2 won at once', async () => {
    const { s, ids } = await session(['great', 'other']);
    const r = await s.runParallel({ branchIds: ids, strategy: 'best', worker: (b) => ({ plan: b.name === 'great' ? great : badPlan }), maxRounds: 5 });
    expect(r.stopReason).toBe('quality');
  });

  it('converged: under best, two validated branches are about as good as each other', async () => {
    const { s, ids } = await session(['a', 'b', 'never']);
    const worker: BranchWorker = async (b, ctx) => {
      if (b.name === 'never') await new Promise((resolve) => setTimeout(resolve, 5, ctx.signal));
      return { plan: b.name === 'never' ? badPlan : plan() };
    };
    expect((await s.runParallel({ branchIds: ids, strategy: 'best', worker, maxRounds: 20 })).stopReason).toBe('converged');
  });

  it("session_budget: 90% of the session's tokens are used", async () => {
    const { s, ids } = await session(['a', 'b'], { maxTokens: 1000 });
    const r = await s.runParallel({ branchIds: ids, strategy: 'best', worker: (b) => ({ thoughts: [{ content: 'thinking hard', tokens: b.name === 'a' ? 460 : 0 }], plan: badPlan }), maxRounds: 10 });
    expect(r.stopReason).toBe('session_budget');
  });

  it("budget_exceeded: the run's budget refused a call", async () => {
    const { s, ids } = await session(['a', 'b']);
    const worker: BranchWorker = async (_b, ctx) => (await callModel(ctx.model!, { messages: [{ role: 'user', content: 'go' }] }, { signal: ctx.signal }), { plan: badPlan });
    const r = await s.runParallel({ branchIds: ids, strategy: 'bandit', worker, model: answering(() => 'ok'), budget: { maxCalls: 1 } });
    expect(r.stopReason).toBe('budget_exceeded');
  });

  it('timeout: the run reached timeoutMs', async () => {
    const { s, ids } = await session(['a']);
    expect((await s.runParallel({ branchIds: ids, worker: withModel(slow()), model: slow(), timeoutMs: 50 })).stopReason).toBe('timeout');
  });

  it("aborted: the caller's signal fired (the run rejects with ABORTED)", async () => {
    const { s, ids } = await session(['a']);
    await expectAborted((signal) => s.runParallel({ branchIds: ids, worker: withModel(slow()), model: slow(), signal }));
  });

  it('error: every call failed', async () => {
    const { s, ids } = await session(['a', 'b']);
    const r = await s.runParallel({ branchIds: ids, strategy: 'best', worker: withModel(rejecting()), model: rejecting(), maxRounds: 1 });
    expect(r).toMatchObject({ stopReason: 'error', detail: { kind: 'error', code: 'GENERATION_FAILED' } });
  });
});

// ── Deliberation ──────────────────────────────────────────────────────────────────────────────

describe('Deliberation: stop reasons', () => {
  const decision = (action: HostDecision['action'], extra: Partial<HostDecision> = {}): HostDecision => ({ action, reason: '', nextAgents: [], constraints: { mustAddress: [], avoid: [] }, directives: [], ...extra });
  const host = (decide: (round: number, agents: readonly string[]) => HostDecision): DeliberationHost => ({ decide: (ctx) => decide(ctx.round, ctx.agents) });
  const agent = (id: string, model: LanguageModel) => llmAgent({ id, model, system: `You are ${id}.`, turn: (ctx) => `turn ${ctx.round}` });
  const debate = (model: LanguageModel, decide: (round: number, agents: readonly string[]) => HostDecision, extra: Record<string, unknown> = {}) =>
    new Deliberation({ agents: [agent('a', model), agent('b', model)], host: host(decide), parallelFirstRound: false, ...extra });
  const goOn = (_round: number, agents: readonly string[]) => decision('continue', { nextAgents: [...agents] });

  it('converged: the host decided the agents agree', async () => {
    expect((await debate(answering(() => 'yes'), () => decision('converge')).run('q')).stopReason).toBe('converged');
  });

  it('plateau: the host converged because consensus stopped moving', async () => {
    expect((await debate(answering(() => 'yes'), () => decision('converge', { plateau: true })).run('q')).stopReason).toBe('plateau');
  });

  it('terminated: the host ended the deliberation', async () => {
    expect((await debate(answering(() => 'yes'), () => decision('terminate')).run('q')).stopReason).toBe('terminated');
  });

  it('max_rounds_reached: maxRounds rounds without a decision to stop', async () => {
    const r = await debate(answering(() => 'yes'), goOn, { maxRounds: 2 }).run('q');
    expect(r).toMatchObject({ stopReason: 'max_rounds_reached', rounds: [{ round: 1 }, { round: 2 }] });
  });

  it('budget_exceeded: the budget refused a call', async () => {
    expect((await debate(answering(() => 'yes'), goOn, { budget: { maxCalls: 3 } }).run('q')).stopReason).toBe('budget_exceeded');
  });

  it('timeout: the run reached timeoutMs', async () => {
    expect((await debate(slow(), goOn, { timeoutMs: 50 }).run('q')).stopReason).toBe('timeout');
  });

  it("aborted: the caller's signal fired (the run rejects with ABORTED)", async () => {
    await expectAborted((signal) => debate(slow(), goOn).run('q', { signal }));
  });

  it('error: the host could not decide', async () => {
    const r = await debate(answering(() => 'yes'), () => {
      throw new Error('the moderator crashed');
    }).run('q');
    expect(r).toMatchObject({ stopReason: 'error', errors: [{ code: 'INTERNAL', message: 'the moderator crashed' }] });
  });
});
