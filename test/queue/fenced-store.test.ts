import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { FencedStore } from '../../src/queue/fenced-store.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';

const event = (type: string, n: number) => ({ type, data: { n }, idempotencyKey: `k${n}` });

describe('the store a worker gives a run', () => {
  it('passes appends through until fenced', async () => {
    const inner = new InMemoryEventStore();
    const store = new FencedStore(inner);
    await store.append('r', [event('run.started', 0)], { expectedVersion: 'no_stream' });
    expect((await collect(inner.readStream('r'))).map((e) => [e.version, e.type])).toEqual([[0, 'run.started']]);
  });

  it('refuses every append once fenced', async () => {
    const store = new FencedStore(new InMemoryEventStore());
    store.fence();
    await catchTotError(() => store.append('r', [event('search.started', 1)], { expectedVersion: 'any' }), 'ABORTED');
  });
});
