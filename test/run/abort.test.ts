import { describe, expect, it } from 'vitest';
import {
  bfs,
  Budget,
  createEvaluator,
  createGenerator,
  Explorer,
  fromFunction,
  InMemoryEventStore,
  protocolEvaluator,
  protocolGenerator,
  solve,
  type AppendOptions,
  type EventStore,
  type LanguageModel,
  type NewEvent,
  type ThoughtEvaluator,
  type ThoughtGenerator,
} from '../../src/index.js';
import { FractalSolver } from '../../src/fractal/index.js';
import { ChainOfThoughtNode } from '../../src/cot/index.js';
import { mockModel } from '../../src/testing/index.js';
import { scriptedRoles } from '../search/fixtures.js';
import { catchTotError, delay } from '../helpers/expect-tot-error.js';

const never = <T>() => new Promise<T>(() => undefined);

/** Aborts after a moment and expects the run to reject with ABORTED: a part that held it would time the test out. */
async function abortsPromptly(start: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const controller = new AbortController();
  const pending = start(controller.signal);
  await delay(20);
  controller.abort(new Error('stop'));
  await catchTotError(() => pending, 'ABORTED');
}

/** A provider that honours its signal and says how many of its calls are still running. */
function trackedProvider(latency: (i: number) => number) {
  let started = 0;
  let running = 0;
  const model: LanguageModel = {
    modelId: 'tracked',
    generate(request, options) {
      const i = started++;
      running++;
      return new Promise((resolve, reject) => {
        const done = () => {
          running--;
          options?.signal?.removeEventListener('abort', onAbort);
        };
        const onAbort = () => {
          clearTimeout(timer);
          done();
          reject(options!.signal!.reason);
        };
        const timer = setTimeout(() => {
          done();
          const reply = request.tags?.role === 'generator' ? '{"candidates": [{"content": "a"}, {"content": "b"}, {"content": "c"}]}' : '{"score": 6, "confidence": 1, "reasoning": ""}';
          resolve({ outputs: [reply], usage: { inputTokens: 10, outputTokens: 5 } });
        }, latency(i));
        options?.signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
  return { model, started: () => started, running: () => running };
}

describe('a stopping run', () => {
  it('leaves none of its calls running when a budget stops it, and counts every call it made', async () => {
    const provider = trackedProvider((i) => 5 + ((i * 7) % 40));
    const explorer = new Explorer({ generator: createGenerator({ model: provider.model }), evaluator: createEvaluator({ model: provider.model }), strategy: bfs({ beamWidth: 3 }), maxDepth: 3, branchingFactor: 3, concurrency: 8, budget: new Budget({ maxCalls: 10 }) });
    const result = await explorer.run('R');
    expect(result.stopReason).toBe('budget_exceeded');
    expect(provider.running()).toBe(0);
    expect(result.stats.llmCalls).toBe(provider.started());
    expect(result.stats.llmCalls).toBeLessThanOrEqual(10);
  });

  it.each<[string, Partial<{ generator: ThoughtGenerator; evaluator: ThoughtEvaluator; isSolution: () => Promise<boolean> }>]>([
    ['a custom generator', { generator: { generate: () => never() } }],
    ['a custom evaluator', { evaluator: { evaluate: () => never() } }],
    ['isSolution', { isSolution: () => never() }],
    ['a protocolGenerator transport', { generator: protocolGenerator({ send: () => never() }) }],
    ['a protocolEvaluator transport', { evaluator: protocolEvaluator({ send: () => never() }) }],
  ])('does not wait for %s that ignores the signal', async (_name, parts) => {
    const roles = scriptedRoles();
    await abortsPromptly((signal) => new Explorer({ generator: parts.generator ?? roles.generator, evaluator: parts.evaluator ?? roles.evaluator, ...(parts.isSolution ? { isSolution: parts.isSolution } : {}), maxDepth: 2 }).run('R', { signal }));
  }, 3_000);

  it.each([
    ['decomposer', { decomposer: { decompose: () => never() } }],
    ['synthesizer', { synthesizer: { synthesize: () => never() } }],
    ['verifier', { verify: () => never() }],
  ])("does not wait for solve()'s %s that ignores the signal", async (_name, parts) => {
    await abortsPromptly((signal) => solve({ problem: 'R', ...scriptedRoles(), maxDepth: 1, ...(parts as object), signal }));
  }, 3_000);

  it('does not wait for a FractalSolver tool, think or eval that ignores the signal', async () => {
    await abortsPromptly((signal) => new FractalSolver({ think: () => never(), eval: () => never() }).run('goal', { signal }));
    const tools = { hang: { input: (await import('zod')).z.object({}), run: () => never() } };
    await abortsPromptly((signal) => new FractalSolver({ think: async ({ callTool }) => (await callTool('hang', {}), { type: 'RETURN', description: 'x' }), eval: () => ({ type: 'RETURN', description: 'x' }), tools }).run('goal', { signal }));
  }, 3_000);

  it('does not wait for a model that ignores the signal', async () => {
    await abortsPromptly((signal) => new ChainOfThoughtNode({ model: fromFunction(() => never()) }).run('p', { signal }));
  }, 3_000);

  it('does not wait for store writes that hang when it is aborted', async () => {
    const inner = new InMemoryEventStore();
    let release = () => undefined as void;
    const hanging: EventStore = Object.assign(Object.create(inner) as EventStore, {
      append: (streamId: string, events: NewEvent[], options: AppendOptions) => new Promise((resolve) => (release = () => resolve(inner.append(streamId, events, options)))),
    });
    const model = mockModel('{"type": "RETURN", "description": "x"}');
    await abortsPromptly((signal) => new FractalSolver({ model }).run('goal', { signal, store: hanging, runId: 'slow-store' }));
    // A call is made only once the log holds its request (write-ahead): the store never took it, so no call was made.
    expect(model.callCount).toBe(0);
    release();
  }, 3_000);

  /** A store that never answers an append of `type` (or of anything, for '*'); the others it stores. */
  const stallingStore = (type: string): EventStore => {
    const inner = new InMemoryEventStore();
    return Object.assign(Object.create(inner) as EventStore, {
      append: (streamId: string, events: NewEvent[], options: AppendOptions) =>
        type === '*' || events.some((e) => e.type === type) ? new Promise(() => undefined) : inner.append(streamId, events, options),
    });
  };

  it('does not wait for a store that stops answering once the caller aborts, even after its work is done', async () => {
    const model = mockModel('{"current_thinking": "4", "planning": [], "next_thought_needed": false}');
    const controller = new AbortController();
    // Every event but run.finished is stored: the run has done its work and waits on the store.
    const pending = new ChainOfThoughtNode({ model, format: 'json' }).run('2 + 2?', { store: stallingStore('run.finished'), runId: 'stalled', signal: controller.signal });
    await delay(30);
    controller.abort(new Error('shutting down'));
    const error = await catchTotError(() => pending, 'ABORTED');
    expect(error.message).toContain('shutting down');
    expect(error.details?.result).toMatchObject({ stopReason: 'completed' });
  }, 3_000);

  it('settles with TIMEOUT and its result when its time limit passes and the store never confirms the recording', async () => {
    const model = mockModel('{"current_thinking": "4", "planning": [], "next_thought_needed": false}');
    const error = await catchTotError(() => new ChainOfThoughtNode({ model, format: 'json', timeoutMs: 20 }).run('2 + 2?', { store: stallingStore('*'), runId: 'never-stored' }), 'TIMEOUT');
    expect(error.details?.where).toEqual({ kind: 'recording', runId: 'never-stored' });
    expect(error.details?.result).toBeDefined();
  }, 3_000);

  it('settles with TIMEOUT after its time limit when it finished its work early and the store never confirms run.finished', async () => {
    const model = mockModel('{"current_thinking": "4", "planning": [], "next_thought_needed": false}');
    const error = await catchTotError(() => new ChainOfThoughtNode({ model, format: 'json', timeoutMs: 50 }).run('2 + 2?', { store: stallingStore('run.finished'), runId: 'early-end' }), 'TIMEOUT');
    expect(error.details?.result).toMatchObject({ stopReason: 'completed' });
  }, 3_000);

  it('stops calling the model as soon as its recording fails, rejecting with the store error and the partial result', async () => {
    const inner = new InMemoryEventStore();
    let written = 0;
    const dying: EventStore = Object.assign(Object.create(inner) as EventStore, {
      async append(streamId: string, events: NewEvent[], options: AppendOptions) {
        if (written + events.length > 6) throw new Error('disk full');
        written += events.length;
        return inner.append(streamId, events, options);
      },
    });
    const model = mockModel((r) => (r.tags?.role === 'think' ? '{"type": "TODO", "description": "many parts"}' : '{"type": "CALL", "description": "another part"}'));
    const error = await catchTotError(() => new FractalSolver({ model, maxSteps: 100 }).run('endless', { store: dying, runId: 'dying' }), 'ILLEGAL_STATE');
    expect(error.message).toContain('disk full');
    expect(model.callCount).toBeLessThanOrEqual(3);
    expect(error.details?.result).toMatchObject({ stopReason: 'error' });
  });
});
