import { TraceFlags, createTraceState, trace, type Context, type SpanContext } from '@opentelemetry/api';

/**
 * The trace context a run keeps with it (in its `run.started` event, as `trace`), so that a
 * resume on any worker continues the same trace. W3C Trace Context fields.
 *
 * @example
 * ```ts
 * import type { RunTraceContext } from '@tot/core/otel';
 *
 * const kept: RunTraceContext = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
 * ```
 */
export interface RunTraceContext {
  /** `00-{trace id}-{span id of the run span}-{flags}`. */
  traceparent: string;
  tracestate?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The run span's context as a `traceparent`, written by hand so that no propagator needs to be registered. */
export function toRunTraceContext(span: SpanContext): RunTraceContext {
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  const state = span.traceState?.serialize();
  return { traceparent: `00-${span.traceId}-${span.spanId}-${flags}`, ...(state ? { tracestate: state } : {}) };
}

/** A context whose parent is the recorded run span (a remote span), or `undefined` when the record is not a valid traceparent. */
export function contextFromRunTrace(kept: unknown, base: Context): Context | undefined {
  if (typeof kept !== 'object' || kept === null) return undefined;
  const parent = (kept as { traceparent?: unknown }).traceparent;
  if (typeof parent !== 'string') return undefined;
  const match = TRACEPARENT.exec(parent);
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined;
  const state = (kept as { tracestate?: unknown }).tracestate;
  const spanContext: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(typeof state === 'string' && state.length > 0 ? { traceState: createTraceState(state) } : {}),
  };
  return trace.setSpanContext(base, spanContext);
}
