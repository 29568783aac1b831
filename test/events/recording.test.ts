import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, replayRun, type LlmRequestedEvent, type RunEvent } from '../../src/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { scriptedRoles } from '../search/fixtures.js';
import { Explorer } from '../../src/index.js';
import { worldExplorer } from './fixtures/world.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { collect } from '../helpers/collect.js';
import { dyingStore } from '../helpers/dying-store.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('recorded runs', () => {
  it('store every event, model calls included, and replay into the same tree byte for byte', async () => {
    const store = new InMemoryEventStore();
    const result = await worldExplorer().run('p', { store, runId: 'r1' });
    const events = await collect(store.readStream('r1'));
    expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i));
    const types = new Set(events.map((e) => e.type));
    for (const t of ['run.started', 'node.created', 'node.evaluated', 'node.pruned', 'llm.requested', 'llm.completed', 'search.state', 'run.finished']) expect(types).toContain(t);
    const completed = events.filter((e) => e.type === 'llm.completed');
    expect(completed).toHaveLength(result.stats.llmCalls);
    const requested = events.find((e) => e.type === 'llm.requested')!.data as LlmRequestedEvent;
    expect(requested).toMatchObject({ modelId: 'world', request: { tags: { role: 'generator' } } });
    expect(requested.request.messages[0]!.content).toContain('Propose');
    const replayed = await replayRun(store, 'r1');
    expect(JSON.stringify(replayed.tree.toJSON())).toBe(JSON.stringify(result.tree.toJSON()));
    expect(replayed.stopReason).toBe(result.stopReason);
    expect(replayed.modelCalls).toBe(result.stats.llmCalls);
  });

  it('replay a run of misbehaving roles exactly, errors and duplicates included', async () => {
    const store = new InMemoryEventStore();
    const roles = scriptedRoles({ R: ['a', 'a', 'b', 'c'], a: ['x'], b: [] }, { a: 6, b: 2, c: 11, x: 5 });
    const result = await new Explorer({ ...roles, maxDepth: 2, stateKey: (n) => n.content, isSolution: (n) => n.content === 'x' }).run('R', { store, runId: 'messy' });
    const replayed = await replayRun(store, 'messy');
    expect(JSON.stringify(replayed.tree.toJSON())).toBe(JSON.stringify(result.tree.toJSON()));
    expect([...replayed.tree.all()].some((n) => typeof n.metadata.error === 'string')).toBe(true);
  });

  it('refuses to start a run id that is already recorded', async () => {
    const store = new InMemoryEventStore();
    await new Explorer(scriptedRoles()).run('R', { store, runId: 'same' });
    await catchTotError(() => new Explorer(scriptedRoles()).run('R', { store, runId: 'same' }), 'EXPECTED_VERSION_CONFLICT');
  });

  it('refuses a thought over the recording limit, keeping what is stored', async () => {
    const store = new InMemoryEventStore();
    const roles = scriptedRoles({ R: ['short', 'x'.repeat(500)] }, { short: 5 });
    const error = await catchTotError(() => new Explorer({ ...roles, maxDepth: 1 }).run('R', { store, runId: 'capped', maxContentChars: 400 }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('more than the recording limit of 400');
    const events = await collect(store.readStream('capped'));
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => JSON.stringify(e.data).length < 500)).toBe(true);
  });
});

describe('Explorer.resume', () => {
  it('continues an interrupted run to the same tree, serving recorded model calls instead of making them again', async () => {
    const uninterrupted = await worldExplorer().run('p', { runId: 'r' });

    const inner = new InMemoryEventStore();
    const crash = await catchTotError(() => worldExplorer().run('p', { store: dyingStore(inner, 60), runId: 'r' }), 'ILLEGAL_STATE');
    expect(crash.message).toContain('the process died');
    const before = await collect(inner.readStream('r'));
    expect(before.some((e) => e.type === 'run.finished')).toBe(false);
    const recordedCalls = before.filter((e) => e.type === 'llm.completed').length;
    expect(recordedCalls).toBeGreaterThan(0);

    const resumed = await worldExplorer().resume({ store: inner, runId: 'r' });
    expect(JSON.stringify(resumed.tree.toJSON())).toBe(JSON.stringify(uninterrupted.tree.toJSON()));
    expect(resumed.stats.resumedCalls).toBe(recordedCalls);
    expect(resumed.stats.llmCalls).toBe(uninterrupted.stats.llmCalls);
    const after = await collect(inner.readStream('r'));
    expect(after.filter((e) => e.type === 'llm.completed')).toHaveLength(uninterrupted.stats.llmCalls);
    expect(JSON.stringify((await replayRun(inner, 'r')).tree.toJSON())).toBe(JSON.stringify(uninterrupted.tree.toJSON()));
  });

  it('lets exactly one of two workers resume the same run', async () => {
    const inner = new InMemoryEventStore();
    await worldExplorer().run('p', { store: dyingStore(inner, 40), runId: 'shared' }).catch(() => undefined);
    const results = await Promise.allSettled([worldExplorer().resume({ store: inner, runId: 'shared' }), worldExplorer().resume({ store: inner, runId: 'shared' })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(loser.reason.code).toBe('EXPECTED_VERSION_CONFLICT');
  });

  it('returns a finished run as it was, without searching again', async () => {
    const store = new InMemoryEventStore();
    const done = await worldExplorer().run('p', { store, runId: 'done' });
    const again = await worldExplorer().resume({ store, runId: 'done' });
    expect(JSON.stringify(again.tree.toJSON())).toBe(JSON.stringify(done.tree.toJSON()));
    expect(again.stopReason).toBe(done.stopReason);
    expect(again.bestPath.map((n) => n.id)).toEqual(done.bestPath.map((n) => n.id));
  });

  it('refuses an unknown run', async () => {
    await catchTotError(() => worldExplorer().resume({ store: new InMemoryEventStore(), runId: 'nothing' }), 'INVALID_ARGUMENT');
  });

  it('finishes a run killed with kill -9 mid-run, resumed from SQLite in a new process, with the same tree and model calls', async () => {
    const reference = await worldExplorer().run('a problem worth resuming', { runId: 'crash-run' });
    const path = join(mkdtempSync(join(tmpdir(), 'tot-resume-')), 'runs.db');
    // The fixture bundled with its sources, under plain node: tsx would compile them on every start.
    const fixture = await bundleFixture('test/events/fixtures/resumable-run.ts');
    const child = spawn(process.execPath, [fixture, 'run', path], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    // Kill it once it has recorded a good part of its model calls.
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const probe = new SqliteEventStore({ path });
      const n = (await collect(probe.readStream('crash-run'))).filter((e) => e.type === 'llm.completed').length;
      await probe.close();
      if (n >= 12 || child.exitCode !== null) break;
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    const probe = new SqliteEventStore({ path });
    const log = await collect(probe.readStream('crash-run'));
    await probe.close();
    expect(log.some((e) => (e.data as RunEvent).type === 'run.finished'), 'the run was killed before it finished').toBe(false);

    const out = JSON.parse(execFileSync(process.execPath, [fixture, 'resume', path], { cwd: root, encoding: 'utf8' })) as { tree: unknown; llmCalls: number; resumedCalls: number; callsMadeHere: number };
    expect(JSON.stringify(out.tree)).toBe(JSON.stringify(reference.tree.toJSON()));
    // Calls in flight at the kill were asked of the provider: the resumed run counts them too.
    const cutOff = log.filter((e) => e.type === 'llm.requested').length - log.filter((e) => e.type === 'llm.completed' || e.type === 'llm.failed').length;
    expect(out.llmCalls).toBe(reference.stats.llmCalls + cutOff);
    expect(out.resumedCalls + out.callsMadeHere).toBe(reference.stats.llmCalls);
    expect(out.resumedCalls).toBeGreaterThanOrEqual(12);
  }, 60_000);
});
