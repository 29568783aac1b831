// tot runs on a store holding runs that asked a person: a run waiting for answers is listed as
// waiting, with the questions it waits for; a run resumed with them, by its last run.finished.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '@tot/core';
import { SqliteEventStore } from '@tot/core/sqlite';
import { listRuns } from '../../src/cli/read-store.js';
import { ensureCli, totCli } from '../helpers/tot-cli.js';
import { askingExplorer } from '../viewer/fixtures/runs.js';

const PICK = 'strategy/ask-twice#pick';
const DEEPER = 'strategy/ask-twice#deeper';

describe('tot runs: runs that asked a person', () => {
  it('lists a run that ended waiting as waiting, with the ids of the questions it waits for', async () => {
    const store = new InMemoryEventStore();
    await askingExplorer().run('p', { store, runId: 'waits' });
    const [row] = await listRuns(store);
    expect(row).toMatchObject({ id: 'waits', stopReason: 'waiting', waitingFor: [PICK] });
    expect(row!.calls).toBeGreaterThan(0);
  });

  it('lists a run resumed with its answers and finished by the stop reason of its last run.finished', async () => {
    const store = new InMemoryEventStore();
    await askingExplorer().run('p', { store, runId: 'done' });
    await askingExplorer().resume({ store, runId: 'done', answers: { [PICK]: 0 } });
    await askingExplorer().resume({ store, runId: 'done', answers: { [DEEPER]: false } });
    const [row] = await listRuns(store);
    expect(row!.stopReason).toBe('max_depth');
    expect(row!.waitingFor).toBeUndefined();
  });

  it('lists a run resumed after a wait whose log ends before its next run.finished as running or interrupted', async () => {
    const store = new InMemoryEventStore();
    await askingExplorer().run('p', { store, runId: 'goes-on' });
    const events = [];
    for await (const e of store.readStream('goes-on')) events.push(e);
    const cut = new InMemoryEventStore();
    const resumed = { type: 'run.resumed', data: { type: 'run.resumed', runId: 'goes-on', seq: events.length, at: 0, fromVersion: events.length, fromSeq: events.length }, idempotencyKey: 'resumed' };
    await cut.append('goes-on', [...events.map((e, i) => ({ type: e.type, data: e.data, idempotencyKey: `k${i}` })), resumed], { expectedVersion: 'no_stream' });
    const [row] = await listRuns(cut);
    expect(row!.stopReason).toBe('(running or interrupted)');
    expect(row!.waitingFor).toBeUndefined();
  });

  it('tot runs shows a waiting run as waiting for an answer, and --json lists the questions it waits for', async () => {
    await ensureCli();
    const dir = mkdtempSync(join(tmpdir(), 'tot-runs-waiting-'));
    try {
      const db = join(dir, 'runs.db');
      const store = new SqliteEventStore({ path: db });
      await askingExplorer().run('p', { store, runId: 'waits' });
      await store.close();
      const table = spawnSync(process.execPath, [totCli(), 'runs', db], { encoding: 'utf8', timeout: 120_000 });
      expect(table.stderr).toBe('');
      expect(table.stdout.split('\n').find((line) => line.startsWith('waits'))).toMatch(/^waits\s+search\s+waiting for an answer\s/);
      const json = spawnSync(process.execPath, [totCli(), 'runs', db, '--json'], { encoding: 'utf8', timeout: 120_000 });
      expect(JSON.parse(json.stdout)).toMatchObject({ id: 'waits', stopReason: 'waiting', waitingFor: [PICK] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
