// The telemetry of a run that asks a person: the question and its answer are span events of the
// run span (no words unless the host opts in to content), a run that ends waiting ends its span
// with the status unset and says it waits, and its resume continues the same trace.
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, type Question } from '@tot/core';
import { withTelemetry } from '@tot/core/otel';
import { askingExplorer } from '../viewer/fixtures/runs.js';
import { everyString, otelKit } from './otel-kit.js';

const PICK = 'strategy/ask-twice#pick';
const runSpans = (spans: readonly ReadableSpan[]) => spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_workflow');

describe('telemetry of a run that asks a person', () => {
  it('ends the span of a run that waits with the status unset, saying it waits and for which questions', async () => {
    const kit = await otelKit();
    const store = new InMemoryEventStore();
    await askingExplorer().run('p', withTelemetry({ store, runId: 'waits' }, { tracer: kit.tracer, meter: kit.meter }));
    const [run] = runSpans(kit.spans());
    expect(run!.status.code).toBe(SpanStatusCode.UNSET);
    expect(run!.attributes).toMatchObject({ 'tot.run.stop_reason': 'waiting', 'tot.run.waiting': true, 'tot.run.waiting_for': [PICK] });
  });

  it('records the question as a span event of the run span with its id and key, and no words of it', async () => {
    const kit = await otelKit();
    await askingExplorer().run('p', withTelemetry({ store: new InMemoryEventStore(), runId: 'asks' }, { tracer: kit.tracer, meter: kit.meter }));
    const [run] = runSpans(kit.spans());
    expect(run!.events.filter((e) => e.name === 'tot.run.asked').map((e) => e.attributes)).toEqual([{ 'tot.question.id': PICK, 'tot.question.key': 'pick' }]);
    expect(everyString(kit.spans()).some((s) => s.includes('Which thought'))).toBe(false);
  });

  it('records the question\'s words and preview, and the answer, only when the host opts in to content', async () => {
    const kit = await otelKit();
    await askingExplorer().run('p', withTelemetry({ store: new InMemoryEventStore(), runId: 'captured', onAsk: (q: Question) => (q.key === 'pick' ? 1 : false) }, { tracer: kit.tracer, meter: kit.meter, captureContent: true }));
    const [run] = runSpans(kit.spans());
    const asked = run!.events.find((e) => e.name === 'tot.run.asked')!.attributes!;
    expect(asked['tot.question.text']).toBe('Which thought should the search follow?');
    expect(JSON.parse(String(asked['tot.question.preview']))).toHaveLength(3);
    expect(run!.events.filter((e) => e.name === 'tot.run.answered').map((e) => e.attributes)).toEqual([
      { 'tot.question.id': PICK, 'tot.question.answered_by': 'handler', 'tot.question.answer': '1' },
      { 'tot.question.id': 'strategy/ask-twice#deeper', 'tot.question.answered_by': 'handler', 'tot.question.answer': 'false' },
    ]);
  });

  it('continues the trace when the waiting run is resumed with its answers: a new run span, a child of the first, that records the answer', async () => {
    const kit = await otelKit();
    const store = new InMemoryEventStore();
    const telemetry = { tracer: kit.tracer, meter: kit.meter };
    await askingExplorer().run('p', withTelemetry({ store, runId: 'resumed' }, telemetry));
    await askingExplorer().resume(withTelemetry({ store, runId: 'resumed', answers: { [PICK]: 0 } }, telemetry));
    const [first, second] = runSpans(kit.spans());
    expect(second).toBeDefined();
    expect(second!.spanContext().traceId).toBe(first!.spanContext().traceId);
    expect(second!.parentSpanContext?.spanId).toBe(first!.spanContext().spanId);
    expect(second!.attributes['tot.run.resumed_from_seq']).toBeTypeOf('number');
    expect(second!.events.find((e) => e.name === 'tot.run.answered')?.attributes).toEqual({ 'tot.question.id': PICK, 'tot.question.answered_by': 'resume' });
    // The resumed run asked its second question and waits again.
    expect(second!.attributes['tot.run.waiting_for']).toEqual(['strategy/ask-twice#deeper']);
  });
});
