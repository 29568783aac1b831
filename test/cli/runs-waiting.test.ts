// tot runs on a store holding runs that asked a person: a run waiting for answers is listed as
// waiting, with the questions it waits for; a run resumed with them, by its last run.finished.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '@tot/core';
import { listRuns } from '../../src/cli/read-store.js';
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
});
