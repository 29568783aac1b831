import { describe, expect, it } from 'vitest';
import {
  bfs,
  createEvaluator,
  createGenerator,
  Explorer,
  fromFunction,
  InMemoryEventStore,
  solve,
  TotError,
  withRetry,
  type ErrorLocation,
  type ExplorationResult,
  type RunError,
  type SearchEvent,
  type ThoughtEvaluator,
  type ThoughtGenerator,
} from '../../src/index.js';
import { OperationGraph, type Operation } from '../../src/graph/index.js';
import { SessionEngine } from '../../src/sessions/index.js';
import { Deliberation } from '../../src/deliberation/index.js';
import { FractalSolver } from '../../src/fractal/index.js';
import { mockModel, scriptedModel } from '../../src/testing/index.js';
import { collect } from '../helpers/collect.js';
import { catchTotError, delay } from '../helpers/expect-tot-error.js';
import { scriptedRoles } from '../search/fixtures.js';

/** A script with a rule for the generator only: the evaluator's prompt matches nothing. */
const generatorOnly = () => scriptedModel({ rules: [{ name: 'propose', when: (r) => r.tags?.role === 'generator', reply: '{"candidates": [{"content": "13 - 9 = 4"}]}' }] });

const explorerOn = (model: Parameters<typeof createGenerator>[0]['model'], extra: Partial<ConstructorParameters<typeof Explorer>[0]> = {}) =>
  new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: bfs({ beamWidth: 1 }), maxDepth: 1, ...extra });

describe('errors of a run', () => {
  it("with strict, reject the run with the scripted model's own diagnostic, its cause chain intact", async () => {
    const error = await catchTotError(() => explorerOn(generatorOnly(), { strict: true }).run('Use 4 9 10 13'), 'GENERATION_FAILED');
    expect(error.message).toMatch(/^evaluator at node_1_1: scriptedModel "scripted": no rule matches call #2\./);
    expect(error.message).toContain('You are judging one candidate step');
    expect(error.message).toContain('propose (1/∞ uses)');
    expect(error.details?.where).toEqual({ kind: 'node', nodeId: 'node_1_1', role: 'evaluator' });
    expect(TotError.hasCode(error.cause, 'GENERATION_FAILED')).toBe(true);
    expect(error.details?.result).toMatchObject({ stopReason: 'error' });
  });

  it('without strict, are recorded where they happened and listed in the result, the diagnostic kept', async () => {
    const result = await explorerOn(generatorOnly()).run('Use 4 9 10 13');
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code: 'GENERATION_FAILED', where: { kind: 'node', nodeId: 'node_1_1', role: 'evaluator' } });
    expect(result.errors[0]!.message).toContain('no rule matches');
    expect(String(result.tree.node('node_1_1').metadata.error)).toContain('no rule matches');
  });

  it('stop a run whose every model call fails (a 401 on each) with error and the cause, not as an unsolvable problem', async () => {
    const unauthorized = fromFunction(async () => {
      throw Object.assign(new Error('401 Incorrect API key provided'), { status: 401 });
    });
    const result = await explorerOn(withRetry(unauthorized, { initialDelayMs: 0 }), { maxDepth: 3 }).run('R');
    expect(result.stopReason).toBe('error');
    expect(result.detail).toMatchObject({ kind: 'error', code: 'GENERATION_FAILED', message: expect.stringContaining('401 Incorrect API key') });
    expect(result.errors[0]).toMatchObject({ code: 'GENERATION_FAILED', where: { kind: 'node', nodeId: 'root', role: 'generator' } });
    expect(result.stats).toMatchObject({ llmCalls: 1, failedCalls: 1 });
  });

  it('show a retried 429 as an llm.retried event and count the retry', async () => {
    const flaky = mockModel([Object.assign(new Error('429 Too Many Requests'), { status: 429, retryAfterMs: 0 }), '{"type": "RETURN", "description": "ok"}']);
    const solver = new FractalSolver({ model: withRetry(flaky, { initialDelayMs: 0 }), think: undefined, eval: () => ({ type: 'RETURN', description: 'x' }) });
    const events: { type: string }[] = [];
    const result = await solver.run('goal', { onEvent: (e) => events.push(e) });
    const retried = events.find((e) => e.type === 'llm.retried');
    expect(retried).toMatchObject({ callId: 'c1', attempt: 1, delayMs: 0, status: 429, error: { code: 'GENERATION_FAILED' } });
    expect(result.stats).toMatchObject({ llmCalls: 1, retries: 1, failedCalls: 0 });
    expect(result.result).toBe('ok');
  });

  it('of a listener never stop the run, and are listed in the result', async () => {
    const explorer = explorerOn(mockModel((r) => (r.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}')));
    explorer.on('node.evaluated', () => {
      throw new Error('dashboard down');
    });
    const result = await explorer.run('R');
    expect(result.stopReason).toBe('max_depth');
    expect(result.errors).toMatchObject([{ code: 'INTERNAL', message: 'dashboard down', where: { kind: 'listener', event: 'node.evaluated' } }]);
  });

  it('of a listener of run.finished are reported as a process warning: the result lists what the log lists', async () => {
    const store = new InMemoryEventStore();
    const explorer = explorerOn(mockModel((r) => (r.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}')));
    explorer.on('run.finished', () => {
      throw new Error('late dashboard');
    });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const result = await explorer.run('R', { store, runId: 'late-listener' });
      const finished = (await collect(store.readStream('late-listener'))).at(-1)!;
      expect(result.errors).toEqual([]);
      expect((finished.data as { errors: unknown[] }).errors).toEqual([]);
      await delay(0);
      expect(warnings).toEqual([expect.stringContaining('late dashboard')]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('an abort rejects with ABORTED whose message and cause carry the signal reason', async () => {
    const slow = fromFunction(() => delay(5_000).then(() => '{"candidates": []}'));
    const controller = new AbortController();
    const pending = explorerOn(slow).run('R', { signal: controller.signal });
    await delay(10);
    controller.abort(new Error('the user closed the tab'));
    const error = await catchTotError(() => pending, 'ABORTED');
    expect(error.message).toBe('The search was aborted: the user closed the tab.');
    expect((error.cause as Error).message).toBe('the user closed the tab');
    expect((error.details?.result as unknown as ExplorationResult).stopReason).toBe('aborted');
  });

  it('a run.finished event records the errors and the stop detail', async () => {
    const events: SearchEvent[] = [];
    await explorerOn(generatorOnly()).run('R', { onEvent: (e) => events.push(e) });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', stopReason: 'search_exhausted', errors: [{ code: 'GENERATION_FAILED', recoverable: false, where: { kind: 'node', nodeId: 'node_1_1', role: 'evaluator' } }] });
  });
});

describe('an untyped error thrown by user code', () => {
  const boom = () => new Error('boom');
  const expectInternal = (errors: readonly RunError[], where: Partial<ErrorLocation>) => {
    expect(errors).toMatchObject([{ code: 'INTERNAL', message: 'boom', where }]);
    expect((errors[0]!.cause as Error).message).toBe('boom');
  };

  it('of a custom evaluator is recorded as INTERNAL with the cause attached', async () => {
    const { generator } = scriptedRoles();
    const evaluator: ThoughtEvaluator = {
      evaluate: async () => {
        throw boom();
      },
    };
    const r = await new Explorer({ generator, evaluator, maxDepth: 1 }).run('R');
    expect(r.errors).toHaveLength(3);
    expect(r.errors.every((e) => e.code === 'INTERNAL' && e.message === 'boom' && (e.cause as Error).message === 'boom')).toBe(true);
  });

  it('of a custom generator is recorded as INTERNAL', async () => {
    const generator: ThoughtGenerator = {
      generate: async () => {
        throw boom();
      },
    };
    const r = await new Explorer({ generator, evaluator: scriptedRoles().evaluator, maxDepth: 1 }).run('R');
    expectInternal(r.errors, { kind: 'node', nodeId: 'root', role: 'generator' });
  });

  it("of solve()'s decomposer is recorded as INTERNAL", async () => {
    const decomposer = {
      decompose: async () => {
        throw boom();
      },
    };
    const r = await solve({ problem: 'R', ...scriptedRoles(), maxDepth: 1, decomposer });
    expectInternal(r.errors, { kind: 'phase', phase: 'decompose' });
  });

  it("of a FractalSolver's think is recorded as INTERNAL, on the frame too", async () => {
    const r = await new FractalSolver({
      think: () => {
        throw boom();
      },
      eval: () => ({ type: 'RETURN', description: 'x' }),
    }).run('goal');
    expectInternal(r.errors, { kind: 'frame', frameId: 'f0', operator: 'think' });
    expect(r.root.all()[0]!.error).toMatchObject({ code: 'INTERNAL', message: 'boom' });
  });

  it('of a custom operation is recorded as INTERNAL', async () => {
    const g = new OperationGraph<{ v: string }>();
    g.add({ kind: 'custom', describe: () => ({}), execute: async () => Promise.reject(boom()) } as unknown as Operation<{ v: string }>, { id: 'a' });
    const r = await g.run({ input: { v: 'x' } });
    expectInternal(r.errors, { kind: 'operation', operationId: 'a' });
  });

  it("of a runParallel worker is recorded as INTERNAL", async () => {
    const engine = new SessionEngine({ store: new InMemoryEventStore(), writerId: 'w' });
    const s = await engine.startSession({ goal: 'g', successCriteria: ['c'] });
    const t = await s.addThought({ role: 'planner', content: 'start' });
    const [branch] = await s.fork({ from: t.id, branches: [{ name: 'only' }] });
    const r = await s.runParallel({ branchIds: [branch!.id], worker: () => Promise.reject(boom()) });
    expectInternal(r.errors, { kind: 'branch', branchId: branch!.id });
  });

  it('of a deliberation agent is recorded as INTERNAL', async () => {
    const host = { decide: () => ({ action: 'converge' as const, reason: '', nextAgents: [], constraints: { mustAddress: [], avoid: [] }, directives: [] }) };
    const r = await new Deliberation({ agents: [{ id: 'a', respond: () => Promise.reject(boom()) }], host }).run('q');
    expectInternal(r.errors, { kind: 'agent', agentId: 'a', round: 1 });
  });
});
