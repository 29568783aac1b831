// A real OpenTelemetry SDK for the telemetry tests: a tracer provider exporting to memory, a meter
// provider with a reader the test collects from, and helpers that read spans the way a backend does.
import type { Attributes } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';

class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export interface OtelKit {
  tracer: ReturnType<BasicTracerProvider['getTracer']>;
  meter: ReturnType<MeterProvider['getMeter']>;
  spans(): ReadableSpan[];
  histogram(name: string): HistogramMetricData | undefined;
}

export async function otelKit(): Promise<OtelKit & { collect(): Promise<void> }> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meters = new MeterProvider({ readers: [reader] });
  let collected: HistogramMetricData[] = [];
  return {
    tracer: provider.getTracer('test'),
    meter: meters.getMeter('test'),
    spans: () => exporter.getFinishedSpans(),
    histogram: (name) => collected.find((m) => m.descriptor.name === name),
    async collect() {
      const { resourceMetrics } = await reader.collect();
      collected = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics) as HistogramMetricData[];
    },
  };
}

/** The run span (`invoke_workflow …`) of the spans: the one that is no model call. */
export function runSpanOf(spans: readonly ReadableSpan[]): ReadableSpan {
  const runs = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_workflow');
  if (runs.length !== 1) throw new Error(`expected one run span, got ${runs.length}`);
  return runs[0]!;
}

/** Every string a span carries: its name, its attributes, its events' names and attributes. */
export function everyString(spans: readonly ReadableSpan[]): string[] {
  const out: string[] = [];
  const add = (attributes: Attributes | undefined) => {
    for (const v of Object.values(attributes ?? {})) {
      if (typeof v === 'string') out.push(v);
      else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') out.push(x);
    }
  };
  for (const s of spans) {
    out.push(s.name);
    add(s.attributes);
    for (const e of s.events) {
      out.push(e.name);
      add(e.attributes);
    }
  }
  return out;
}
