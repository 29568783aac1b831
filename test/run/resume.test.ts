import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bfs,
  createEvaluator,
  createGenerator,
  dfs,
  Explorer,
  InMemoryEventStore,
  replayRun,
  resumeSolve,
  solve,
  type RunResult,
  type SolveResult,
  type EventStore,
  type LanguageModel,
} from '../../src/index.js';
import { FractalSolver } from '../../src/fractal/index.js';
import { ChainOfThoughtNode } from '../../src/cot/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { worldModel } from '../events/fixtures/world.js';
import { collect } from '../helpers/collect.js';
import { completedRequests } from '../helpers/completed-requests.js';
import { dyingStore } from '../helpers/dying-store.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { scriptedRoles } from '../search/fixtures.js';

interface Setup {
  model?: LanguageModel;
  beamWidth?: number;
  branchingFactor?: number;
  strategy?: 'bfs' | 'dfs';
  prompt?: string;
  budget?: { maxCalls?: number; maxTotalTokens?: number };
}

const explorer = (s: Setup = {}) => {
  const model = s.model ?? worldModel();
  return new Explorer({
    generator: createGenerator({ model, ...(s.prompt ? { prompt: s.prompt } : {}) }),
    evaluator: createEvaluator({ model }),
    strategy: s.strategy === 'dfs' ? dfs() : bfs({ beamWidth: s.beamWidth ?? 3 }),
    maxDepth: 3,
    branchingFactor: s.branchingFactor ?? 4,
    concurrency: 4,
    now: () => 0,
    ...(s.budget ? { budget: s.budget } : {}),
  });
};

/** An interrupted recorded run (beam 3, branching 4) and its log as it stands. */
async function interrupted(runId: string) {
  const store = new InMemoryEventStore();
  await catchTotError(() => explorer().run('p', { store: dyingStore(store, 40), runId }), 'ILLEGAL_STATE');
  return { store, before: await collect(store.readStream(runId)) };
}

describe('resuming a recorded run', () => {
  it.each<[string, Setup, string]>([
    ['a narrower beam', { beamWidth: 1 }, 'strategy.options.beamWidth'],
    ['another branching factor', { branchingFactor: 2 }, 'branchingFactor'],
    ['another strategy', { strategy: 'dfs' }, 'strategy.name'],
    ['another prompt', { prompt: 'Next step for {{problem}} after {{path}}, {{k}} of them: JSON {"candidates": []}' }, 'generator.prompt'],
    ['another model', { model: { ...worldModel(), modelId: 'other-model' } }, 'generator.modelId'],
  ])('with %s is refused with RESUME_MISMATCH, and nothing is written', async (_name, setup, path) => {
    const { store, before } = await interrupted('changed');
    const error = await catchTotError(() => explorer(setup).resume({ store, runId: 'changed' }), 'RESUME_MISMATCH');
    expect(error.details?.differences.map((d) => d.path)).toContain(path);
    expect(error.message).toContain('nothing was written');
    expect(await collect(store.readStream('changed'))).toEqual(before);
    // The log is still a whole, resumable run.
    const resumed = await explorer().resume({ store, runId: 'changed' });
    expect(resumed.stopReason).toBe('max_depth');
    expect((await replayRun(store, 'changed')).stopReason).toBe('max_depth');
  });

  it('whose roles now behave differently is refused when its replay diverges from the log, with nothing written', async () => {
    const store = new InMemoryEventStore();
    const roles = (suffix: string) => ({
      generator: { generate: async ({ parent }: { parent: { content: string } }) => [{ content: `${parent.content}/a${suffix}` }, { content: `${parent.content}/b${suffix}` }] },
      evaluator: { evaluate: async ({ candidates }: { candidates: { id: string }[] }) => ({ evaluations: candidates.map((c) => ({ nodeId: c.id, score: 5, confidence: 1, reasoning: '' })), ranking: [], pruningSuggestions: [] }) },
    });
    await catchTotError(() => new Explorer({ ...roles(''), maxDepth: 3 }).run('p', { store: dyingStore(store, 12), runId: 'drift' }), 'ILLEGAL_STATE');
    const before = await collect(store.readStream('drift'));
    const error = await catchTotError(() => new Explorer({ ...roles('!'), maxDepth: 3 }).resume({ store, runId: 'drift' }), 'RESUME_MISMATCH');
    expect(error.message).toContain('no longer does what its log says');
    expect(error.details?.seq).toBeGreaterThan(0);
    expect(await collect(store.readStream('drift'))).toEqual(before);
  });

  it('by another kind of runner is refused', async () => {
    const { store } = await interrupted('search-run');
    const error = await catchTotError(() => new FractalSolver({ think: () => ({ type: 'RETURN', description: 'x' }), eval: () => ({ type: 'RETURN', description: 'x' }) }).resume({ store, runId: 'search-run' }), 'RESUME_MISMATCH');
    expect(error.details?.differences).toEqual([{ path: 'runner', recorded: 'search', current: 'fractal' }]);
  });

  it('serves every recorded call when its budget caps the output of each request', async () => {
    // A token limit makes the budget add maxOutputTokens to each request it admits; the log keys calls as asked.
    const setup = { budget: { maxTotalTokens: 1_000_000 } };
    const reference = await explorer(setup).run('p', { runId: 'capped' });
    const store = new InMemoryEventStore();
    await catchTotError(() => explorer(setup).run('p', { store: dyingStore(store, 40), runId: 'capped' }), 'ILLEGAL_STATE');
    const recorded = (await collect(store.readStream('capped'))).filter((e) => e.type === 'llm.completed').length;
    const resumed = await explorer(setup).resume({ store, runId: 'capped' });
    expect(recorded).toBeGreaterThan(0);
    expect(resumed.stats.resumedCalls).toBe(recorded);
    expect(resumed.tree.toJSON()).toEqual(reference.tree.toJSON());
  });

  it('charges the calls it serves to its budget, so that it stops where the uninterrupted run stopped', async () => {
    const setup = { budget: { maxCalls: 12 } };
    const reference = await explorer(setup).run('p', { runId: 'budgeted' });
    expect(reference.stopReason).toBe('budget_exceeded');
    const store = new InMemoryEventStore();
    await catchTotError(() => explorer(setup).run('p', { store: dyingStore(store, 40), runId: 'budgeted' }), 'ILLEGAL_STATE');
    const resumed = await explorer(setup).resume({ store, runId: 'budgeted' });
    expect(resumed.stopReason).toBe('budget_exceeded');
    expect(resumed.stats.llmCalls).toBe(reference.stats.llmCalls);
    expect(resumed.tree.toJSON()).toEqual(reference.tree.toJSON());
  });

  it('continues the sequence numbers of the log without a gap, after a run.resumed event', async () => {
    const { store, before } = await interrupted('seq');
    await explorer().resume({ store, runId: 'seq' });
    const after = await collect(store.readStream('seq'));
    expect(after.map((e) => (e.data as { seq: number }).seq)).toEqual(after.map((_, i) => i));
    expect(after[before.length]!.type).toBe('run.resumed');
  });

  it('streams the whole run to a listener of the resumer: the log, then what the run adds', async () => {
    const { store } = await interrupted('streamed');
    const node = explorer();
    const done = node.resume({ store, runId: 'streamed' });
    const streamed = await collect(node.stream());
    await done;
    const stored = await collect(store.readStream('streamed'));
    expect(streamed.map((e) => `${e.seq}:${e.type}`)).toEqual(stored.map((e) => `${(e.data as { seq: number }).seq}:${e.type}`));
  });
});


// The fixture bundled with the sources: plain node starts it in a fraction of what tsx takes.
let resumable: string;
beforeAll(async () => {
  resumable = await bundleFixture('test/run/fixtures/resumable.ts');
}, 120_000);

async function killAndResume(runner: 'cot' | 'solve', runId: string, minCalls: number) {
  const path = join(mkdtempSync(join(tmpdir(), `tot-${runner}-`)), 'runs.db');
  const run = (mode: string) => [resumable, runner, mode, path];
  // The uninterrupted reference run, on its own file, beside the run that is killed.
  const referenceRun = promisify(execFile)(process.execPath, run('run').map((a) => a.replace(path, `${path}.reference`)), { encoding: 'utf8' });
  const child = spawn(process.execPath, run('run'), { stdio: ['ignore', 'pipe', 'inherit'] });
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 40));
    const probe = new SqliteEventStore({ path });
    const n = (await collect(probe.readStream(runId))).filter((e) => e.type === 'llm.completed').length;
    await probe.close();
    if (n >= minCalls || child.exitCode !== null) break;
  }
  child.kill('SIGKILL');
  await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  const probe = new SqliteEventStore({ path });
  const log = await collect(probe.readStream(runId));
  await probe.close();
  const reference = JSON.parse((await referenceRun).stdout);
  const resumed = JSON.parse(execFileSync(process.execPath, run('resume'), { encoding: 'utf8' }));
  const final = new SqliteEventStore({ path });
  const after = await collect(final.readStream(runId));
  await final.close();
  return { reference, log, resumed, after };
}

describe('a run killed with kill -9 and resumed from SQLite in a new process', () => {
  it('finishes a ChainOfThoughtNode run with the same thoughts and not one model call made twice', async () => {
    const { reference, log, resumed, after } = await killAndResume('cot', 'crash-cot', 4);
    expect(log.some((e) => e.type === 'run.finished'), 'the run was killed before it finished').toBe(false);
    const recorded = log.filter((e) => e.type === 'llm.completed').length;
    expect(recorded).toBeGreaterThanOrEqual(4);
    expect(resumed.value).toEqual(reference.value);
    expect(resumed.resumedCalls).toBe(recorded);
    expect(resumed.callsMadeHere).toBe(reference.llmCalls - recorded);
    const requests = completedRequests(after);
    expect(new Set(requests).size).toBe(requests.length);
  }, 60_000);

  it('finishes a solve() run with the same tree and solution and not one model call made twice', async () => {
    const { reference, log, resumed, after } = await killAndResume('solve', 'crash-solve', 6);
    expect(log.some((e) => e.type === 'run.finished'), 'the run was killed before it finished').toBe(false);
    const recorded = log.filter((e) => e.type === 'llm.completed').length;
    // Calls in flight at the kill were asked of the provider: the resumed run counts them too.
    const cutOff = log.filter((e) => e.type === 'llm.requested').length - recorded - log.filter((e) => e.type === 'llm.failed').length;
    expect(resumed.value).toEqual(reference.value);
    expect(resumed.llmCalls).toBe(reference.llmCalls + cutOff);
    expect(resumed.resumedCalls).toBe(recorded);
    expect(resumed.callsMadeHere).toBe(reference.llmCalls - recorded);
    const requests = completedRequests(after);
    expect(requests).toHaveLength(reference.llmCalls);
  }, 60_000);
});

describe('a finished run', () => {
  /** A result as a log can hold it: errors by code and message (their causes are not recorded), a tree as its JSON. */
  const comparable = (r: RunResult) => {
    const tree = (r as Partial<SolveResult>).tree;
    return { ...r, errors: r.errors.map((e) => ({ code: e.code, message: e.message })), ...(tree ? { tree: tree.toJSON() } : {}) };
  };
  const cotModel = { modelId: 'thinker', generate: async () => ({ outputs: ['{"current_thinking": "42", "planning": [], "next_thought_needed": false}'], usage: {} }) };
  const think = () => ({ type: 'RETURN' as const, description: 'done' });

  it.each<[string, (store: EventStore, runId: string) => Promise<RunResult>, (store: EventStore, runId: string) => Promise<RunResult>]>([
    ['Explorer', (store, runId) => explorer().run('p', { store, runId }), (store, runId) => explorer().resume({ store, runId })],
    ['solve()', (store, runId) => solve({ problem: 'R', ...scriptedRoles(), maxDepth: 2, store, runId }), (store, runId) => resumeSolve({ ...scriptedRoles(), maxDepth: 2, store, runId })],
    ['FractalSolver', (store, runId) => new FractalSolver({ think, eval: think }).run('goal', { store, runId }), (store, runId) => new FractalSolver({ think, eval: think }).resume({ store, runId })],
    ['ChainOfThoughtNode', (store, runId) => new ChainOfThoughtNode({ model: cotModel, format: 'json' }).run('q', { store, runId }), (store, runId) => new ChainOfThoughtNode({ model: cotModel, format: 'json' }).resume({ store, runId })],
  ])('of %s resumes to the result it resolved with, from its log alone', async (_name, run, resume) => {
    const store = new InMemoryEventStore();
    const done = await run(store, 'done');
    const before = await collect(store.readStream('done'));
    expect(comparable(await resume(store, 'done'))).toEqual(comparable(done));
    expect(await collect(store.readStream('done'))).toEqual(before);
  });

  it('of solve() stopped before its search began resumes to the result it stopped with', async () => {
    const store = new InMemoryEventStore();
    const controller = new AbortController();
    const decomposer = { decompose: async () => { controller.abort(new Error('shutting down')); return new Promise<never>(() => undefined); } };
    const error = await catchTotError(() => solve({ problem: 'R', ...scriptedRoles(), decomposer, maxDepth: 2, store, runId: 'early', signal: controller.signal }), 'ABORTED');
    const stopped = error.details?.result as unknown as SolveResult;
    expect(stopped.solution?.verification.validationErrors).toEqual(['not synthesized: the run stopped first']);
    const resumed = await resumeSolve({ ...scriptedRoles(), decomposer, maxDepth: 2, store, runId: 'early' });
    expect(comparable(resumed)).toEqual(comparable(stopped));
  });
});
