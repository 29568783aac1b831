import { SpanKind, SpanStatusCode, context as otelContext, metrics, trace, type Attributes, type Context, type Histogram, type Meter, type Span, type Tracer } from '@opentelemetry/api';
import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { fnSchema, parseOptions } from '../internal/validate.js';
import type { RunEventBase, RunEventListener, RunStartedEvent, RunStartedFields } from '../run/run-event.js';
import * as G from './gen-ai.js';
import { structureAttributes } from './structure-attributes.js';
import { contextFromRunTrace, toRunTraceContext } from './trace-context.js';

/**
 * Options of {@link telemetryListener} and {@link withTelemetry}.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import type { TelemetryOptions } from '@tot/core/otel';
 *
 * const options: TelemetryOptions = { tracer: trace.getTracer('my-service'), captureContent: false };
 * ```
 */
export interface TelemetryOptions {
  /** Default: the global tracer provider's tracer `@tot/core` (a no-op until the host registers an SDK). */
  tracer?: Tracer;
  /** Default: the global meter provider's meter `@tot/core`. */
  meter?: Meter;
  /**
   * Record prompts, model outputs and the text in the runner's events (thoughts, goals, answers) on
   * the spans, as the GenAI conventions' opt-in attributes. Default `false`: spans then carry no
   * text that a model or a user wrote.
   */
  captureContent?: boolean;
  /** Parent of a new run's span. Default: the active context (e.g. the host's request span). */
  context?: Context;
  /**
   * `gen_ai.provider.name` of a call. Default: the part of the model id before `:` or `/`
   * (`openai:gpt-4o` → `openai`), else `_OTHER`.
   */
  providerName?: string | ((modelId: string) => string);
  /**
   * Request tags copied to a call's span as `tot.tag.<key>`. Default: the tags the built-in runners
   * set that name structure (role, strategy, node, depth, operation, kind, sample index, round,
   * participant, phase). A tag holding text (the generator's `thought`) is left out unless listed.
   */
  callTags?: readonly string[];
}

const hasMethod = (name: string) => (v: unknown) => typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)[name] === 'function';

const optionsSchema = z.strictObject({
  tracer: z.custom<Tracer>(hasMethod('startSpan'), 'expected an OpenTelemetry Tracer').optional(),
  meter: z.custom<Meter>(hasMethod('createHistogram'), 'expected an OpenTelemetry Meter').optional(),
  captureContent: z.boolean().optional(),
  context: z.custom<Context>(hasMethod('getValue'), 'expected an OpenTelemetry Context').optional(),
  providerName: z.union([z.string().min(1), fnSchema<(modelId: string) => string>()]).optional(),
  callTags: z.array(z.string()).readonly().optional(),
});

const DEFAULT_TAGS = ['role', 'strategy', 'node', 'depth', 'operation', 'kind', 'sampleIndex', 'deliberation.round', 'deliberation.participant', 'deliberation.phase', 'branch', 'round'];

const LIBRARY = '@tot/core';

/** The metric attributes of a model: made once, since a meter hashes each attributes object it gets. */
interface ModelAttributes {
  call: Attributes;
  input: Attributes;
  output: Attributes;
  provider: string;
  model: string;
  /** `chat {model}`, the name of the model's call spans. */
  spanName: string;
}

interface CallState {
  span: Span;
  metrics: ModelAttributes;
}

interface RunState {
  runner: string;
  /** Parent for the run span still to start (a resume starts it at `run.resumed`). */
  parent: Context | undefined;
  span: Span | undefined;
  spanContext: Context | undefined;
  /** Catching up with a traced log on resume: its spans were exported by the worker that ran them. */
  catchingUp: boolean;
  calls: Map<string, CallState>;
  /** The span the runner's events go to as span events, and how many it holds. */
  structure: Span | undefined;
  structureEvents: number;
}

const EVENTS_PER_SPAN = 128;

const eventNames = new Map<string, string>();

/** `tot.{event type}`, the span event's name, made once per type: a run has hundreds of events of a handful of types. */
function eventName(type: string): string {
  let name = eventNames.get(type);
  if (name === undefined) {
    name = `tot.${type}`;
    // Types come from the runners' event unions; a cap keeps odd input from growing it.
    if (eventNames.size < 1000) eventNames.set(type, name);
  }
  return name;
}

interface Instruments {
  tokenUsage: Histogram;
  duration: Histogram;
}

const instruments = new WeakMap<Meter, Instruments>();

/** The GenAI client histograms of a meter, made once per meter: a listener is made per run, and an SDK registers each instrument it is asked for. */
function instrumentsOf(meter: Meter): Instruments {
  let found = instruments.get(meter);
  if (found === undefined) {
    found = {
      tokenUsage: meter.createHistogram(G.METRIC_TOKEN_USAGE, {
        description: 'Number of input and output tokens used.',
        unit: '{token}',
        advice: { explicitBucketBoundaries: G.TOKEN_USAGE_BUCKETS },
      }),
      duration: meter.createHistogram(G.METRIC_OPERATION_DURATION, {
        description: 'GenAI operation duration.',
        unit: 's',
        advice: { explicitBucketBoundaries: G.DURATION_BUCKETS },
      }),
    };
    instruments.set(meter, found);
  }
  return found;
}

type AnyEvent = RunEventBase & Record<string, unknown>;

function finishReason(reason: unknown): string {
  return reason === 'content-filter' ? 'content_filter' : String(reason);
}

function splitModel(modelId: string): { provider: string | undefined; model: string } {
  const at = modelId.search(/[:/]/);
  return at > 0 ? { provider: modelId.slice(0, at), model: modelId.slice(at + 1) } : { provider: undefined, model: modelId };
}

function messagesJson(messages: readonly { role: string; content: string }[]): { system: string | undefined; input: string } {
  const system = messages.filter((m) => m.role === 'system').map((m) => ({ type: 'text', content: m.content }));
  const input = messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] }));
  return { system: system.length > 0 ? JSON.stringify(system) : undefined, input: JSON.stringify(input) };
}

/**
 * The telemetry of runs as an event listener: give it as a run's `onEvent` (or use
 * {@link withTelemetry}) and each run becomes a span `invoke_workflow {runner}`, each model call a
 * child span `chat {model}` with the OpenTelemetry GenAI attributes, each of the runner's own
 * events (a node created, an operation completed, a round started, …) a span event
 * `tot.{event type}` on a `tot.structure` child span (128 events each) carrying ids and parent
 * ids, enough to rebuild the tree or graph from the spans alone; and
 * the GenAI client metrics `gen_ai.client.token.usage` and `gen_ai.client.operation.duration`.
 *
 * The run span's context is written into the run's `run.started` event (`trace`), through the
 * listener's `runStarted` hook, so a recorded run resumed on another worker continues the same
 * trace (wrap the listener in a function of your own and the hook must go with it: use
 * {@link withTelemetry}). A question the run asks a person is a
 * span event `tot.run.asked` on the run span (its id and key; its words and preview only with
 * `captureContent`), its answer `tot.run.answered` (who gave it). A run that ends waiting for
 * answers ends its span with the status unset, `tot.run.stop_reason` `waiting`, `tot.run.waiting`
 * and the question ids in `tot.run.waiting_for`; its resume starts a new run span, a child of it,
 * in the same trace. One listener can serve many runs at
 * once (its state is per run id).
 *
 * @example
 * ```ts
 * import { Explorer } from '@tot/core';
 * import { telemetryListener } from '@tot/core/otel';
 *
 * const explorer = new Explorer({ generator, evaluator });
 * const result = await explorer.run('Use 4 9 10 13 to make 24', { onEvent: telemetryListener() });
 * ```
 */
export function telemetryListener(options: TelemetryOptions = {}): RunEventListener {
  options = parseOptions(optionsSchema, options, 'telemetryListener') as TelemetryOptions;
  const tracer = options.tracer ?? trace.getTracer(LIBRARY);
  const meter = options.meter ?? metrics.getMeter(LIBRARY);
  const capture = options.captureContent === true;
  const tags = options.callTags ?? DEFAULT_TAGS;
  // The tags' attribute names, made once rather than per call.
  const tagNames = tags.map((key) => `tot.tag.${key}`);
  const { tokenUsage, duration } = instrumentsOf(meter);
  const models = new Map<string, ModelAttributes>();
  const modelOf = (modelId: string): ModelAttributes => {
    let found = models.get(modelId);
    if (found === undefined) {
      const split = splitModel(modelId);
      const named = options.providerName;
      const provider = typeof named === 'function' ? named(modelId) : (named ?? split.provider ?? '_OTHER');
      const model = typeof named === 'string' || split.provider === undefined ? modelId : split.model;
      const call = { [G.GEN_AI_OPERATION_NAME]: G.OPERATION_CHAT, [G.GEN_AI_PROVIDER_NAME]: provider, [G.GEN_AI_REQUEST_MODEL]: model };
      found = { call, input: { ...call, [G.GEN_AI_TOKEN_TYPE]: G.TOKEN_TYPE_INPUT }, output: { ...call, [G.GEN_AI_TOKEN_TYPE]: G.TOKEN_TYPE_OUTPUT }, provider, model, spanName: `${G.OPERATION_CHAT} ${model}` };
      models.set(modelId, found);
    }
    return found;
  };
  const runs = new Map<string, RunState>();

  const startRunSpan = (state: RunState, event: AnyEvent, attributes: Attributes): void => {
    const span = tracer.startSpan(`${G.OPERATION_INVOKE_WORKFLOW} ${state.runner}`, { kind: SpanKind.INTERNAL, startTime: event.at, attributes }, state.parent);
    state.span = span;
    state.spanContext = trace.setSpan(state.parent ?? otelContext.active(), span);
  };

  /** Starts the run's span (or, for a traced log read back, its catching up); returns the span's context to keep with the run, if there is a real trace. */
  const onStarted = (event: AnyEvent): RunStartedFields['trace'] => {
    const runner = typeof event.runner === 'string' ? event.runner : 'run';
    const base = options.context ?? otelContext.active();
    const kept = contextFromRunTrace(event.trace, base);
    if (kept !== undefined) {
      // The log of a traced run, read back by a resume: its spans are already exported.
      runs.set(event.runId, { runner, parent: kept, span: undefined, spanContext: undefined, catchingUp: true, calls: new Map(), structure: undefined, structureEvents: 0 });
      return undefined;
    }
    const state: RunState = { runner, parent: base, span: undefined, spanContext: undefined, catchingUp: false, calls: new Map(), structure: undefined, structureEvents: 0 };
    runs.set(event.runId, state);
    startRunSpan(state, event, {
      [G.GEN_AI_OPERATION_NAME]: G.OPERATION_INVOKE_WORKFLOW,
      'tot.run.id': event.runId,
      'tot.runner': runner,
      ...(capture && typeof event.problem === 'string' ? { 'tot.run.problem': event.problem } : {}),
    });
    const spanContext = state.span!.spanContext();
    // Kept with the run only when there is a real trace to continue.
    return trace.isSpanContextValid(spanContext) ? toRunTraceContext(spanContext) : undefined;
  };
  // The run.started events whose span the runStarted hook started: the same event reaches the listener next.
  const startedByHook = new WeakSet<object>();

  const onRequested = (state: RunState, event: AnyEvent): void => {
    const callId = String(event.callId);
    const modelId = String(event.modelId);
    const metrics = modelOf(modelId);
    const request = (event.request ?? {}) as { messages?: { role: string; content: string }[]; temperature?: number; maxOutputTokens?: number; n?: number; stop?: string[]; seed?: number; tags?: Record<string, string> };
    const attributes: Attributes = {
      [G.GEN_AI_OPERATION_NAME]: G.OPERATION_CHAT,
      [G.GEN_AI_PROVIDER_NAME]: metrics.provider,
      [G.GEN_AI_REQUEST_MODEL]: metrics.model,
      'tot.call.id': callId,
    };
    if (request.temperature !== undefined) attributes[G.GEN_AI_REQUEST_TEMPERATURE] = request.temperature;
    if (request.maxOutputTokens !== undefined) attributes[G.GEN_AI_REQUEST_MAX_TOKENS] = request.maxOutputTokens;
    if (request.n !== undefined && request.n !== 1) attributes[G.GEN_AI_REQUEST_CHOICE_COUNT] = request.n;
    if (request.stop !== undefined && request.stop.length > 0) attributes[G.GEN_AI_REQUEST_STOP_SEQUENCES] = request.stop;
    if (request.seed !== undefined) attributes[G.GEN_AI_REQUEST_SEED] = request.seed;
    const given = request.tags;
    if (given) {
      for (let i = 0; i < tags.length; i++) {
        const value = given[tags[i]!];
        if (value !== undefined) attributes[tagNames[i]!] = value;
      }
    }
    if (capture && request.messages) {
      const { system, input } = messagesJson(request.messages);
      attributes[G.GEN_AI_INPUT_MESSAGES] = input;
      if (system !== undefined) attributes[G.GEN_AI_SYSTEM_INSTRUCTIONS] = system;
    }
    const span = tracer.startSpan(metrics.spanName, { kind: SpanKind.CLIENT, startTime: event.at, attributes }, state.spanContext);
    state.calls.set(callId, { span, metrics });
  };

  const onCompleted = (state: RunState, event: AnyEvent): void => {
    const callId = String(event.callId);
    const call = state.calls.get(callId);
    if (call === undefined) return;
    state.calls.delete(callId);
    const usage = (event.usage ?? {}) as { inputTokens?: number; outputTokens?: number };
    const attributes: Attributes = {};
    if (event.finishReason !== undefined) attributes[G.GEN_AI_RESPONSE_FINISH_REASONS] = [finishReason(event.finishReason)];
    if (usage.inputTokens !== undefined) attributes[G.GEN_AI_USAGE_INPUT_TOKENS] = usage.inputTokens;
    if (usage.outputTokens !== undefined) attributes[G.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.outputTokens;
    if (event.cacheHit === true) attributes['tot.call.cache_hit'] = true;
    if (capture && Array.isArray(event.outputs)) {
      const reason = event.finishReason === undefined ? undefined : finishReason(event.finishReason);
      attributes[G.GEN_AI_OUTPUT_MESSAGES] = JSON.stringify((event.outputs as string[]).map((text) => ({ role: 'assistant', parts: [{ type: 'text', content: text }], ...(reason ? { finish_reason: reason } : {}) })));
    }
    call.span.setAttributes(attributes);
    call.span.end(event.at);
    if (usage.inputTokens !== undefined) tokenUsage.record(usage.inputTokens, call.metrics.input);
    if (usage.outputTokens !== undefined) tokenUsage.record(usage.outputTokens, call.metrics.output);
    if (typeof event.durationMs === 'number') duration.record(event.durationMs / 1000, call.metrics.call);
  };

  const onFailed = (state: RunState, event: AnyEvent): void => {
    const call = state.calls.get(String(event.callId));
    if (call === undefined) return;
    state.calls.delete(String(event.callId));
    const error = (event.error ?? {}) as { code?: string; message?: string };
    const type = error.code ?? '_OTHER';
    call.span.setAttribute(G.ERROR_TYPE, type);
    if (typeof event.status === 'number') call.span.setAttribute('http.response.status_code', event.status);
    call.span.setStatus({ code: SpanStatusCode.ERROR, ...(error.message ? { message: error.message } : {}) });
    call.span.end(event.at);
    if (typeof event.durationMs === 'number') duration.record(event.durationMs / 1000, { ...call.metrics.call, [G.ERROR_TYPE]: type });
  };

  const onFinished = (state: RunState, event: AnyEvent): void => {
    const span = state.span!;
    const attributes: Attributes = { 'tot.run.stop_reason': String(event.stopReason) };
    const stats = event.stats as Record<string, unknown> | undefined;
    if (stats) for (const key in stats) if (typeof stats[key] === 'number') attributes[`tot.run.stats.${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`] = stats[key] as number;
    if (Array.isArray(event.errors)) attributes['tot.run.errors'] = event.errors.length;
    if (event.stopReason === 'waiting') {
      // Not an error, and not the end: the run waits for a person, and its resume continues the trace.
      const questions = (event.detail as { questions?: unknown } | undefined)?.questions;
      attributes['tot.run.waiting'] = true;
      if (Array.isArray(questions)) attributes['tot.run.waiting_for'] = questions.map(String);
    }
    span.setAttributes(attributes);
    const error = event.error as { code?: string; message?: string } | undefined;
    if (error) {
      span.setAttribute(G.ERROR_TYPE, error.code ?? '_OTHER');
      span.setStatus({ code: SpanStatusCode.ERROR, ...(error.message ? { message: error.message } : {}) });
    }
    // A call still open here was cut off by the end of the run.
    for (const call of state.calls.values()) call.span.end(event.at);
    state.structure?.end(event.at);
    span.end(event.at);
    runs.delete(event.runId);
  };

  const listener = (raw: RunEventBase): void => {
    const event = raw as AnyEvent;
    if (event.type === 'run.started') {
      // A listener given without its hook (wrapped in another function) still traces the run; the
      // trace context is then not kept with it.
      if (!startedByHook.has(event)) onStarted(event);
      return;
    }
    const state = runs.get(event.runId);
    if (state === undefined) return;
    if (state.catchingUp) {
      if (event.type === 'run.resumed') {
        state.catchingUp = false;
        startRunSpan(state, event, {
          [G.GEN_AI_OPERATION_NAME]: G.OPERATION_INVOKE_WORKFLOW,
          'tot.run.id': event.runId,
          'tot.runner': state.runner,
          'tot.run.resumed_from_seq': Number(event.fromSeq),
        });
      } else if (event.type === 'run.finished' && event.stopReason !== 'waiting') runs.delete(event.runId);
      // A log that ended waiting for answers goes on at the resume's run.resumed, in the same trace.
      return;
    }
    switch (event.type) {
      case 'llm.requested':
        return onRequested(state, event);
      case 'llm.completed':
        return onCompleted(state, event);
      case 'llm.failed':
        return onFailed(state, event);
      case 'llm.retried': {
        const error = (event.error ?? {}) as { code?: string };
        state.calls.get(String(event.callId))?.span.addEvent('tot.llm.retried', { 'tot.attempt': Number(event.attempt), 'tot.delay_ms': Number(event.delayMs), [G.ERROR_TYPE]: error.code ?? '_OTHER' }, event.at);
        return;
      }
      case 'budget.warning':
        state.span!.addEvent('tot.budget.warning', { 'tot.budget.limit': String(event.limit), 'tot.budget.used': Number(event.used), 'tot.budget.max': Number(event.max), 'tot.budget.ratio': Number(event.ratio) }, event.at);
        return;
      case 'run.asked': {
        // The question's words and preview are a person's or a program's text: only with content capture.
        const attributes: Attributes = { 'tot.question.id': String(event.questionId), 'tot.question.key': String(event.key) };
        if (capture) {
          attributes['tot.question.text'] = String(event.question);
          if (event.preview !== undefined) attributes['tot.question.preview'] = JSON.stringify(event.preview);
        }
        state.span!.addEvent('tot.run.asked', attributes, event.at);
        return;
      }
      case 'run.answered': {
        const attributes: Attributes = { 'tot.question.id': String(event.questionId), 'tot.question.answered_by': String(event.by) };
        if (capture) attributes['tot.question.answer'] = JSON.stringify(event.answer) ?? 'null';
        state.span!.addEvent('tot.run.answered', attributes, event.at);
        return;
      }
      case 'run.resumed':
        state.span!.addEvent('tot.run.resumed', { 'tot.seq': event.seq, 'tot.from_seq': Number(event.fromSeq) }, event.at);
        return;
      case 'run.finished':
        return onFinished(state, event);
      default: {
        const attributes = structureAttributes(event);
        if (capture) attributes['tot.event.data'] = JSON.stringify(event);
        // Span events are far cheaper than spans, but an SDK keeps only 128 a span by default and a
        // search makes hundreds of nodes: the events go to `tot.structure` spans of 128 events each.
        if (state.structure === undefined || state.structureEvents >= EVENTS_PER_SPAN) {
          state.structure?.end(event.at);
          state.structure = tracer.startSpan('tot.structure', { kind: SpanKind.INTERNAL, startTime: event.at, attributes: { 'tot.run.id': event.runId } }, state.spanContext);
          state.structureEvents = 0;
        }
        state.structureEvents++;
        state.structure.addEvent(eventName(event.type), attributes, event.at);
      }
    }
  };
  return Object.assign(listener, {
    runStarted(event: Readonly<RunStartedEvent>): RunStartedFields | undefined {
      startedByHook.add(event);
      const kept = onStarted(event as unknown as AnyEvent);
      return kept === undefined ? undefined : { trace: kept };
    },
  });
}

/**
 * A run's (or a resume's) options with telemetry turned on: the same options, with an `onEvent`
 * that feeds {@link telemetryListener} and then the `onEvent` they had. One line for any runner.
 *
 * @example
 * ```ts
 * import { withTelemetry } from '@tot/core/otel';
 *
 * const result = await explorer.run(problem, withTelemetry({ store, runId: 'game24-1' }));
 * const again = await Explorer.resume(withTelemetry({ store, runId: 'game24-1', generator, evaluator }));
 * ```
 */
export function withTelemetry<O extends object>(runOptions: O, options?: TelemetryOptions): O {
  if (typeof runOptions !== 'object' || runOptions === null) throw new TotError('INVALID_ARGUMENT', 'withTelemetry: runOptions: expected the options of a run or a resume', { details: { field: 'runOptions' } });
  const listener = telemetryListener(options);
  const own = (runOptions as { onEvent?: unknown }).onEvent as ((event: RunEventBase) => void) | undefined;
  const onEvent: RunEventListener =
    own === undefined
      ? listener
      : Object.assign(
          (event: RunEventBase) => {
            listener(event);
            own(event);
          },
          // The trace context goes into run.started through the telemetry's hook, beside what the host's own listener's hook adds.
          { runStarted: (event: Readonly<RunStartedEvent>): RunStartedFields => ({ ...(own as RunEventListener).runStarted?.(event), ...listener.runStarted?.(event) }) },
        );
  return { ...runOptions, onEvent } as O;
}
