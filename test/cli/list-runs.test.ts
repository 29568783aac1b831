import { describe, expect, it } from 'vitest';
import { listRuns } from '../../src/cli/read-store.js';
import type { StoredEvent } from '../../src/events/index.js';

function storeOf(events: Array<{ streamId: string; type: string; data: Record<string, unknown> }>) {
  const stored = events.map((e, i): StoredEvent => ({
    eventId: `e${i}`,
    version: i,
    globalPosition: BigInt(i + 1),
    idempotencyKey: `k${i}`,
    parentIds: [],
    clock: {},
    metadata: {},
    recordedAt: new Date(0).toISOString(),
    ...e,
  }));
  return {
    async *readAll() {
      yield* stored;
    },
  };
}

describe('tot runs: the time column', () => {
  it('gives a resumed run the span from its first start to its end, not the finishing process’s wall time', async () => {
    const rows = await listRuns(
      storeOf([
        { streamId: 'r1', type: 'run.started', data: { runner: 'explorer', problem: 'p', at: 1_000 } },
        { streamId: 'r1', type: 'llm.requested', data: { at: 1_200 } },
        // The process died here; a second one resumed the run 5 s later and took 300 ms to finish it.
        { streamId: 'r1', type: 'run.resumed', data: { at: 6_200 } },
        { streamId: 'r1', type: 'run.finished', data: { stopReason: 'solution_found', stats: { llmCalls: 3, wallMs: 300 }, at: 6_500 } },
      ]),
    );
    expect(rows[0]?.ms).toBe(5_500);
  });

  it('falls back to the recorded wall time when the run’s events carry no times', async () => {
    const rows = await listRuns(
      storeOf([
        { streamId: 'r1', type: 'run.started', data: { runner: 'explorer', problem: 'p' } },
        { streamId: 'r1', type: 'run.finished', data: { stopReason: 'solution_found', stats: { llmCalls: 1, wallMs: 42 } } },
      ]),
    );
    expect(rows[0]?.ms).toBe(42);
  });

  it('gives an interrupted run the time up to its latest event', async () => {
    const rows = await listRuns(
      storeOf([
        { streamId: 'r1', type: 'run.started', data: { runner: 'explorer', problem: 'p', at: 100 } },
        { streamId: 'r1', type: 'llm.completed', data: { at: 350 } },
      ]),
    );
    expect(rows[0]).toMatchObject({ stopReason: '(running or interrupted)', ms: 250 });
  });
});
