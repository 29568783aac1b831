// The telemetry of runs, read with the real OpenTelemetry SDK: a span per run, a GenAI client span
// per model call (attribute names held to the semantic conventions' own constants), the runner's
// structure as span events from which the run's tree or graph is rebuilt, the GenAI client
// metrics, and no prompt or output text unless the host opts in.
import { fileURLToPath } from 'node:url';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
  GEN_AI_TOKEN_TYPE_VALUE_INPUT,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
} from '@opentelemetry/semantic-conventions/incubating';
import { beforeAll, describe, expect, it } from 'vitest';
import { bfs, callModel, Explorer, fromFunction, InMemoryEventStore, ThoughtTree, type LanguageModel, type RunEventBase, type ExplorationResult, type StoredEvent } from '@tot/core';
import { telemetryListener, withTelemetry } from '@tot/core/otel';
import { SessionEngine, type BranchWorker } from '@tot/core/sessions';
import { loadReplayLog, replayEvaluator, replayGenerator } from '../../examples/game24/replay.js';
import { recordChainOfThoughtRun, recordDeliberationRun, recordFractalRun, recordGraphRun, readAll } from '../viewer/fixtures/runs.js';
import { everyString, otelKit, runSpanOf } from './otel-kit.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const GAME24_LOG = fileURLToPath(new URL('../../bench/fixtures/game24-gpt4-bfs.json', import.meta.url));

/** A model that reports usage and a finish reason, as a provider adapter does. */
function reportingModel(): LanguageModel {
  const inner = fromFunction(() => 'ok');
  return { modelId: 'openai:gpt-4o-mini', generate: async (req, o) => ({ ...(await inner.generate(req, o)), usage: { inputTokens: 12, outputTokens: 3 }, finishReason: 'stop' }) };
}

function search(): Explorer {
  const puzzle = loadReplayLog(GAME24_LOG)[0]!;
  const transport = reportingModel();
  return new Explorer({
    generator: replayGenerator(puzzle, { transport }),
    evaluator: replayEvaluator(puzzle, { transport }),
    strategy: bfs({ beamWidth: 5 }),
    maxDepth: 4,
    branchingFactor: 1000,
    pruningThreshold: 0,
    concurrency: 4,
  });
}

function searchTree(): ThoughtTree {
  const puzzle = loadReplayLog(GAME24_LOG)[0]!;
  return new ThoughtTree({ problem: puzzle.steps[0]!.x, taskId: 'puzzle', taskType: 'math_reasoning' });
}

/** The runner's own events, as the spans that tell them, in the order they happened. */
const structure = (spans: readonly ReadableSpan[]) =>
  spans
    .filter((s) => s.name === 'tot.structure')
    .flatMap((s) => s.events.map((e) => ({ name: e.name, attributes: e.attributes ?? {}, parentSpanContext: s.parentSpanContext })))
    .sort((a, b) => Number(a.attributes['tot.seq']) - Number(b.attributes['tot.seq']));

const callSpans = (spans: readonly ReadableSpan[]) => spans.filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT);

/** The nodes of a search as its span events tell them: id, parent, depth, score, status. */
function treeFromSpans(spans: readonly ReadableSpan[]): Map<string, { parentId: string | null; depth: number; score: number | undefined; status: string }> {
  const nodes = new Map<string, { parentId: string | null; depth: number; score: number | undefined; status: string }>();
  for (const e of structure(spans)) {
    const a = e.attributes;
    if (e.name === 'tot.node.created') nodes.set(String(a['tot.node.id']), { parentId: a['tot.node.parent_id'] === '' ? null : String(a['tot.node.parent_id']), depth: Number(a['tot.node.depth']), score: undefined, status: 'pending' });
    const node = nodes.get(String(a['tot.node_id']));
    if (e.name === 'tot.node.evaluated' && node) node.score = Number(a['tot.evaluation.score']);
    else if (e.name === 'tot.node.expanded' && node) node.status = 'expanded';
    else if (e.name === 'tot.node.terminal' && node) node.status = 'terminal';
    else if (e.name === 'tot.node.pruned') for (const id of a['tot.pruned_ids'] as string[]) if (nodes.has(id)) nodes.get(id)!.status = 'pruned';
  }
  return nodes;
}

describe('a search run with telemetry on', () => {
  let kit: Awaited<ReturnType<typeof otelKit>>;
  let result: ExplorationResult;
  const events: RunEventBase[] = [];
  let store: InMemoryEventStore;
  beforeAll(async () => {
    kit = await otelKit();
    store = new InMemoryEventStore();
    result = await search().run(searchTree(), withTelemetry({ store, runId: 'game24-otel', onEvent: (e: RunEventBase) => void events.push(e) }, { tracer: kit.tracer, meter: kit.meter }));
    await kit.collect();
  });

  it('makes one run span named for the runner, with its id, stop reason and stats', () => {
    const run = runSpanOf(kit.spans());
    expect(run.name).toBe('invoke_workflow search');
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
      'tot.run.id': 'game24-otel',
      'tot.runner': 'search',
      'tot.run.stop_reason': result.stopReason,
      'tot.run.stats.llm_calls': result.stats.llmCalls,
      'tot.run.stats.input_tokens': result.stats.inputTokens,
    });
  });

  it('makes one client span per model call, a child of the run span, with the GenAI attributes', () => {
    const spans = kit.spans();
    const run = runSpanOf(spans);
    const calls = callSpans(spans);
    expect(calls).toHaveLength(result.stats.llmCalls);
    for (const call of calls) {
      expect(call.name).toBe('chat gpt-4o-mini');
      expect(call.kind).toBe(SpanKind.CLIENT);
      expect(call.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(call.spanContext().traceId).toBe(run.spanContext().traceId);
      expect(call.attributes).toMatchObject({
        [ATTR_GEN_AI_PROVIDER_NAME]: 'openai',
        [ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-4o-mini',
        [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: ['stop'],
        [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 12,
        [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 3,
      });
    }
  });

  it('gives each call span the times its events recorded', () => {
    const requested = events.filter((e) => e.type === 'llm.requested') as (RunEventBase & { callId: string })[];
    const completed = new Map(events.filter((e) => e.type === 'llm.completed').map((e) => [(e as RunEventBase & { callId: string }).callId, e.at]));
    const byCall = new Map(callSpans(kit.spans()).map((s) => [s.attributes['tot.call.id'], s]));
    for (const r of requested) {
      const span = byCall.get(r.callId)!;
      expect(span.startTime[0] * 1000 + span.startTime[1] / 1e6).toBeCloseTo(r.at, 0);
      expect(span.endTime[0] * 1000 + span.endTime[1] / 1e6).toBeCloseTo(completed.get(r.callId)!, 0);
    }
  });

  it('tells the tree through its spans: rebuilt from the spans alone, it is the run tree', () => {
    const rebuilt = treeFromSpans(kit.spans());
    const expected = new Map(
      [...result.tree.all()].map((n) => [n.id, { parentId: n.parentId, depth: n.depth, score: n.evaluation?.score, status: n.status }]),
    );
    expect(rebuilt.size).toBeGreaterThan(10);
    expect(rebuilt).toEqual(expected);
  });

  it('records the GenAI client metrics: token usage by token type and operation duration', () => {
    const usage = kit.histogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE)!;
    expect(usage.descriptor.unit).toBe('{token}');
    const input = usage.dataPoints.find((p) => p.attributes[ATTR_GEN_AI_TOKEN_TYPE] === GEN_AI_TOKEN_TYPE_VALUE_INPUT)!;
    expect(input.attributes).toMatchObject({ [ATTR_GEN_AI_OPERATION_NAME]: 'chat', [ATTR_GEN_AI_PROVIDER_NAME]: 'openai', [ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-4o-mini' });
    expect(input.value.count).toBe(result.stats.llmCalls);
    expect(input.value.sum).toBe(12 * result.stats.llmCalls);
    const duration = kit.histogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION)!;
    expect(duration.descriptor.unit).toBe('s');
    expect(duration.dataPoints[0]!.value.count).toBe(result.stats.llmCalls);
  });

  it('carries no prompt, output or thought text in any span', () => {
    const texts = new Set<string>();
    for (const e of events) {
      if (e.type === 'llm.requested') for (const m of (e as unknown as { request: { messages: { content: string }[] } }).request.messages) texts.add(m.content);
      if (e.type === 'llm.completed') for (const o of (e as unknown as { outputs: string[] }).outputs) texts.add(o);
      if (e.type === 'node.created') texts.add((e as unknown as { node: { content: string } }).node.content);
    }
    texts.delete('ok');
    texts.delete('');
    expect(texts.size).toBeGreaterThan(10);
    const strings = everyString(kit.spans());
    for (const text of texts) expect(strings.filter((s) => s.includes(text))).toEqual([]);
  });

  it('keeps the run span context with the run, in the recorded run.started', async () => {
    const [started] = (await readAll(store, 'game24-otel')) as StoredEvent[];
    const run = runSpanOf(kit.spans());
    expect((started!.data as { trace?: { traceparent: string } }).trace).toEqual({ traceparent: `00-${run.spanContext().traceId}-${run.spanContext().spanId}-01` });
  });
});

describe('content capture', () => {
  it('records prompts and outputs as the GenAI message attributes only when the host opts in', async () => {
    const kit = await otelKit();
    const model: LanguageModel = { modelId: 'm', generate: async () => ({ outputs: ['forty-two'], usage: {}, finishReason: 'stop' }) };
    const listener = telemetryListener({ tracer: kit.tracer, meter: kit.meter, captureContent: true });
    const feed = (e: Record<string, unknown>, seq: number) => listener({ runId: 'r', seq, at: 1000 + seq, ...e } as RunEventBase);
    feed({ type: 'run.started', runner: 'search', problem: 'p', config: {} }, 0);
    feed({ type: 'llm.requested', callId: 'c1', modelId: model.modelId, request: { messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'the question' }], temperature: 0.7, maxOutputTokens: 50 } }, 1);
    feed({ type: 'llm.completed', callId: 'c1', outputs: ['forty-two'], usage: {}, charged: { inputTokens: 1, outputTokens: 1, estimated: true }, finishReason: 'stop', durationMs: 1 }, 2);
    feed({ type: 'run.finished', stopReason: 'completed', stats: {}, errors: [] }, 3);
    const [call] = callSpans(kit.spans());
    expect(call!.attributes).toMatchObject({ [ATTR_GEN_AI_REQUEST_TEMPERATURE]: 0.7, [ATTR_GEN_AI_REQUEST_MAX_TOKENS]: 50, [ATTR_GEN_AI_PROVIDER_NAME]: '_OTHER' });
    expect(JSON.parse(String(call!.attributes[ATTR_GEN_AI_INPUT_MESSAGES]))).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'the question' }] }]);
    expect(JSON.parse(String(call!.attributes['gen_ai.system_instructions']))).toEqual([{ type: 'text', content: 'be brief' }]);
    expect(JSON.parse(String(call!.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES]))).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'forty-two' }], finish_reason: 'stop' }]);
    // Usage the model did not report is left out, never 0.
    expect(call!.attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS]).toBeUndefined();
  });
});

describe('a failed model call', () => {
  it('ends its span with an error status and error.type, as the conventions say', async () => {
    const kit = await otelKit();
    const listener = telemetryListener({ tracer: kit.tracer, meter: kit.meter });
    const feed = (e: Record<string, unknown>, seq: number) => listener({ runId: 'r', seq, at: 1000 + seq, ...e } as RunEventBase);
    feed({ type: 'run.started', runner: 'fractal', problem: 'p', config: {} }, 0);
    feed({ type: 'llm.requested', callId: 'c1', modelId: 'anthropic/claude', request: { messages: [] } }, 1);
    feed({ type: 'llm.failed', callId: 'c1', error: { code: 'GENERATION_FAILED', message: 'rate limited', recoverable: true }, status: 429, durationMs: 5 }, 2);
    feed({ type: 'run.finished', stopReason: 'error', stats: {}, errors: [], error: { code: 'GENERATION_FAILED', message: 'every call failed', recoverable: false } }, 3);
    await kit.collect();
    const [call] = callSpans(kit.spans());
    expect(call!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'rate limited' });
    expect(call!.attributes).toMatchObject({ [ATTR_ERROR_TYPE]: 'GENERATION_FAILED', 'http.response.status_code': 429, [ATTR_GEN_AI_PROVIDER_NAME]: 'anthropic' });
    expect(runSpanOf(kit.spans()).status.code).toBe(SpanStatusCode.ERROR);
    expect(kit.histogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION)!.dataPoints[0]!.attributes[ATTR_ERROR_TYPE]).toBe('GENERATION_FAILED');
  });
});

describe('a new run under a host span', () => {
  it('is a child of the span of the context it is given', async () => {
    const kit = await otelKit();
    const request = kit.tracer.startSpan('POST /solve');
    const listener = telemetryListener({ tracer: kit.tracer, meter: kit.meter, context: trace.setSpan(ROOT_CONTEXT, request) });
    listener({ type: 'run.started', runId: 'r', seq: 0, at: 1, runner: 'search', problem: 'p', config: {} } as RunEventBase);
    listener({ type: 'run.finished', runId: 'r', seq: 1, at: 2, stopReason: 'completed', stats: {}, errors: [] } as unknown as RunEventBase);
    expect(runSpanOf(kit.spans()).parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  });
});

/** Feeds a recorded run's events to a listener, as the run gave them to its `onEvent`. */
async function traceRecorded(events: readonly StoredEvent[]): Promise<ReadableSpan[]> {
  const kit = await otelKit();
  const listener = telemetryListener({ tracer: kit.tracer, meter: kit.meter });
  for (const e of events) listener(structuredClone(e.data) as RunEventBase);
  return kit.spans();
}

describe('every runner', () => {
  it('graph: each operation completed is a span naming its thoughts and their parents', async () => {
    const run = await recordGraphRun();
    const spans = await traceRecorded(run.events);
    const runSpan = runSpanOf(spans);
    expect(runSpan.name).toBe('invoke_workflow graph');
    const fromSpans = new Map<string, string>();
    for (const e of structure(spans).filter((x) => x.name === 'tot.operation.completed')) {
      const ids = e.attributes['tot.thought.ids'] as string[];
      const parents = e.attributes['tot.thought.parent_ids'] as string[];
      ids.forEach((id, i) => fromSpans.set(id, parents[i]!));
    }
    const recorded = new Map<string, string>();
    for (const e of run.events) if (e.type === 'operation.completed') for (const t of (e.data as { thoughts: { id: string; parentIds: string[] }[] }).thoughts) recorded.set(t.id, t.parentIds.join(','));
    expect(fromSpans.size).toBe(run.thoughts);
    expect(fromSpans).toEqual(recorded);
    expect(callSpans(spans).every((s) => s.parentSpanContext?.spanId === runSpan.spanContext().spanId)).toBe(true);
    expect(structure(spans).every((s) => s.parentSpanContext?.spanId === runSpan.spanContext().spanId)).toBe(true);
  });

  it('deliberation: rounds, agent outputs and host decisions are spans; calls are tagged with round and participant', async () => {
    const run = await recordDeliberationRun();
    const spans = await traceRecorded(run.events);
    const runSpan = runSpanOf(spans);
    expect(runSpan.name).toBe('invoke_workflow deliberation');
    expect(structure(spans).filter((e) => e.name === 'tot.round.started').map((e) => e.attributes['tot.round'])).toEqual(Array.from({ length: run.rounds }, (_, i) => i + 1));
    expect(structure(spans).filter((e) => e.name === 'tot.agent.output')).toHaveLength(run.agentOutputs);
    expect(structure(spans).find((e) => e.name === 'tot.agent.output')!.attributes!['tot.output.agent_id']).toBeTypeOf('string');
    expect(callSpans(spans).some((s) => s.attributes['tot.tag.deliberation.participant'] !== undefined)).toBe(true);
  });

  it('fractal: frames and their parents are spans, enough to rebuild the frame tree', async () => {
    const run = await recordFractalRun();
    const spans = await traceRecorded(run.events);
    const runSpan = runSpanOf(spans);
    const frames = structure(spans).filter((e) => e.name === 'tot.frame.created').map((e) => [e.attributes['tot.frame_id'], e.attributes['tot.parent_id']]);
    const recorded = run.events.filter((e) => e.type === 'frame.created').map((e) => { const d = e.data as { frameId: string; parentId: string | null }; return [d.frameId, d.parentId ?? '']; });
    expect(frames).toHaveLength(run.frames);
    expect(frames).toEqual(recorded);
    expect(callSpans(spans)).toHaveLength(run.llmCalls);
  });

  it('chain of thought: each thought is a span with its number and whether another is needed', async () => {
    const run = await recordChainOfThoughtRun();
    const spans = await traceRecorded(run.events);
    const thoughts = structure(spans).filter((e) => e.name === 'tot.thought.completed');
    expect(thoughts.map((e) => e.attributes['tot.thought_number'])).toEqual(Array.from({ length: run.thoughts }, (_, i) => i + 1));
    expect(thoughts.at(-1)!.attributes!['tot.next_thought_needed']).toBe(false);
    expect(callSpans(spans)).toHaveLength(run.llmCalls);
  });

  it('agent session: runParallel\'s branch rounds are spans under its run span, its calls tagged with nothing but their purpose', async () => {
    const kit = await otelKit();
    const engine = new SessionEngine({ store: new InMemoryEventStore(), writerId: 'w' });
    const session = await engine.startSession({ goal: 'Speed up config loading', successCriteria: ['p95 under 5 ms'] });
    const t = await session.addThought({ role: 'planner', content: 'Cache the parsed config.' });
    const ids = (await session.fork({ from: t.id, branches: [{ name: 'a' }, { name: 'b' }] })).map((b) => b.id);
    const plan = { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40, max_files: 2 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'], risk_estimate: { test_coverage: 0.9 }, context_sufficiency: { unresolved_symbol_rate: 0.02 } };
    const worker: BranchWorker = async (branch, ctx) => {
      await callModel(ctx.model!, { messages: [{ role: 'user', content: `plan for ${branch.name}` }] }, { signal: ctx.signal });
      return { thoughts: [{ content: `${branch.name} plan` }], plan };
    };
    const out = await session.runParallel(withTelemetry({ branchIds: ids, strategy: 'best', worker, model: reportingModel() }, { tracer: kit.tracer, meter: kit.meter }));
    const spans = kit.spans();
    const runSpan = runSpanOf(spans);
    expect(runSpan.name).toBe('invoke_workflow got');
    expect(callSpans(spans)).toHaveLength(2);
    const rounds = structure(spans).filter((e) => e.name === 'tot.branch.round.completed');
    expect(rounds.map((e) => e.attributes['tot.branch_id']).sort()).toEqual([...ids].sort());
    expect(structure(spans).find((e) => e.name === 'tot.parallel.decided')!.attributes['tot.winner']).toBe(out.winner!.id);
    expect(everyString(spans).filter((x) => x.includes('plan for'))).toEqual([]);
  });
});

describe('bad options', () => {
  it('a misspelt option is refused with INVALID_ARGUMENT naming it, not dropped', async () => {
    const error = await catchTotError(() => telemetryListener({ captureContnet: true } as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('captureContnet');
  });
});
