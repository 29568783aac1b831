import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '../../src/index.js';
import { registerEventStoreConformance } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

registerEventStoreConformance({ describe, it }, { create: () => new InMemoryEventStore() }, { name: 'InMemoryEventStore' });

describe('InMemoryEventStore', () => {
  it('hands out frozen events that callers cannot change', async () => {
    const store = new InMemoryEventStore();
    const { events } = await store.append('s', [{ type: 't', data: { list: [1] }, idempotencyKey: 'k' }], { expectedVersion: 'no_stream' });
    expect(() => ((events[0]!.data as { list: number[] }).list[0] = 2)).toThrow(TypeError);
  });

  it('takes a configurable event size limit', async () => {
    const store = new InMemoryEventStore({ maxEventBytes: 100 });
    const error = await catchTotError(() => store.append('s', [{ type: 't', data: 'x'.repeat(200), idempotencyKey: 'k' }], { expectedVersion: 'any' }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('exceeds the limit of 100');
    await catchTotError(() => new InMemoryEventStore({ maxEventBytes: 0 }), 'INVALID_ARGUMENT');
  });

  it('refuses an append whose signal is already aborted', async () => {
    const store = new InMemoryEventStore();
    await catchTotError(() => store.append('s', [{ type: 't', data: 1, idempotencyKey: 'k' }], { expectedVersion: 'any', signal: AbortSignal.abort() }), 'ABORTED');
    expect(await store.streamVersion('s')).toBeNull();
  });
});
