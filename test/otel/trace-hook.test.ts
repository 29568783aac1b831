// The kernel's runStarted hook: a run's listener contributes fields (the trace context) to a new
// run's run.started before anyone sees it or the store records it, instead of writing into the
// event from onEvent and counting on being called before the recording.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, type RunEventBase, type RunStartedEvent, type StoredEvent } from '@tot/core';
import { ChainOfThoughtNode } from '@tot/core/cot';
import { telemetryListener } from '@tot/core/otel';
import { mockModel } from '@tot/core/testing';
import { COT_REPLIES } from '../viewer/fixtures/runs.js';
import { otelKit, runSpanOf } from './otel-kit.js';

const TRACE = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
const node = () => new ChainOfThoughtNode({ model: mockModel(COT_REPLIES) });

async function recordedStart(store: InMemoryEventStore, runId: string): Promise<RunStartedEvent> {
  for await (const e of store.readStream(runId) as AsyncIterable<StoredEvent>) return e.data as RunStartedEvent;
  throw new Error('nothing recorded');
}

describe('a listener’s runStarted hook', () => {
  it('is called once, with the stamped run.started, and what it returns is recorded in it', async () => {
    const store = new InMemoryEventStore();
    const asked: Pick<RunStartedEvent, 'type' | 'runId' | 'seq'>[] = [];
    const onEvent = Object.assign((_: RunEventBase) => undefined, {
      runStarted: (e: Readonly<RunStartedEvent>) => {
        asked.push({ type: e.type, runId: e.runId, seq: e.seq });
        return { trace: TRACE };
      },
    });
    await node().run('What is 17 * 23?', { store, runId: 'hooked', onEvent });
    expect(asked).toEqual([{ type: 'run.started', runId: 'hooked', seq: 0 }]);
    expect((await recordedStart(store, 'hooked')).trace).toEqual(TRACE);
  });

  it('writes its fields before any listener sees run.started: the runner’s own listeners get the trace too', async () => {
    const kit = await otelKit();
    const store = new InMemoryEventStore();
    const runner = node();
    const seen: unknown[] = [];
    runner.on('event', (e) => {
      if (e.type === 'run.started') seen.push((e as RunStartedEvent).trace);
    });
    await runner.run('What is 17 * 23?', { store, runId: 'traced', onEvent: telemetryListener({ tracer: kit.tracer, meter: kit.meter }) });
    const run = runSpanOf(kit.spans()).spanContext();
    const kept = { traceparent: `00-${run.traceId}-${run.spanId}-01` };
    expect(seen).toEqual([kept]);
    expect((await recordedStart(store, 'traced')).trace).toEqual(kept);
  });

  it('that throws is a listener error of the run, which goes on with run.started recorded as the runner made it', async () => {
    const store = new InMemoryEventStore();
    const onEvent = Object.assign((_: RunEventBase) => undefined, {
      runStarted: (): undefined => {
        throw new Error('no tracer');
      },
    });
    const result = await node().run('What is 17 * 23?', { store, runId: 'thrown', onEvent });
    expect(result.errors.map((e) => ({ message: e.message, where: e.where }))).toEqual([{ message: 'no tracer', where: { kind: 'listener', event: 'run.started' } }]);
    expect(result.solution).not.toBeNull();
    expect((await recordedStart(store, 'thrown')).trace).toBeUndefined();
  });
});
