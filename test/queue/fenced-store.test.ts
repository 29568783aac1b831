import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { FencedStore } from '../../src/queue/fenced-store.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';

const event = (type: string, n: number) => ({ type, data: { n }, idempotencyKey: `k${n}` });

describe('the store a worker gives a run', () => {
  it('keeps a new run’s lone run.started back, so that a crash right after it leaves no log', async () => {
    const inner = new InMemoryEventStore();
    const store = new FencedStore(inner);
    const first = await store.append('r', [event('run.started', 0)], { expectedVersion: 'no_stream' });
    expect(first.nextExpectedVersion).toBe(0);
    expect(await inner.streamVersion('r')).toBeNull();
  });

  it('writes the held run.started with the next append, as one new stream', async () => {
    const inner = new InMemoryEventStore();
    const store = new FencedStore(inner);
    await store.append('r', [event('run.started', 0)], { expectedVersion: 'no_stream' });
    const next = await store.append('r', [event('search.started', 1), event('llm.requested', 2)], { expectedVersion: 0 });
    expect(next.nextExpectedVersion).toBe(2);
    expect((await collect(inner.readStream('r'))).map((e) => [e.version, e.type])).toEqual([
      [0, 'run.started'],
      [1, 'search.started'],
      [2, 'llm.requested'],
    ]);
  });

  it('fails the held write when another worker started the same run first', async () => {
    const inner = new InMemoryEventStore();
    await inner.append('r', [event('run.started', 9)], { expectedVersion: 'no_stream' });
    const store = new FencedStore(inner);
    await store.append('r', [event('run.started', 0)], { expectedVersion: 'no_stream' });
    await catchTotError(() => store.append('r', [event('search.started', 1)], { expectedVersion: 0 }), 'EXPECTED_VERSION_CONFLICT');
  });

  it('refuses every append once fenced', async () => {
    const store = new FencedStore(new InMemoryEventStore());
    store.fence();
    await catchTotError(() => store.append('r', [event('search.started', 1)], { expectedVersion: 'any' }), 'ABORTED');
  });
});
