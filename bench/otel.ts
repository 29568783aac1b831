/**
 * What telemetry costs a model call: the Game of 24 search of the Tree-of-Thoughts paper's GPT-4
 * log replayed through Explorer on an instant model (96 calls, 81 nodes a run), run after run with
 * telemetry off and on (the real OpenTelemetry SDK: a tracer provider with a batch processor and an
 * exporter that drops what it gets, a meter provider with a reader). The figure is the difference
 * per model call, the run's structure spans included, in CPU time (the process's, over each run):
 * wall time over 40 rounds swung from 17 to 43 µs a call between rounds at load 2, too wide for a
 * target of 20; the wall-time figures stand beside it. Target: ≤ 20 µs median per call.
 */
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { bfs, Explorer, fromFunction, ThoughtTree } from '../src/index.js';
import { withTelemetry } from '../src/otel/index.js';
import { loadReplayLog, replayEvaluator, replayGenerator } from '../examples/game24/replay.js';
import { benchDir, median, report } from './harness.js';

let exported = 0;
const dropping: SpanExporter = {
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]) {
    exported += spans.length;
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};
class Reader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping, { maxQueueSize: 100_000, maxExportBatchSize: 4096 })] });
const meters = new MeterProvider({ readers: [new Reader()] });
const telemetry = { tracer: provider.getTracer('bench'), meter: meters.getMeter('bench') };

const puzzle = loadReplayLog(`${benchDir}/fixtures/game24-gpt4-bfs.json`)[0]!;
const transport = fromFunction(() => 'ok');
const explorer = () => new Explorer({ generator: replayGenerator(puzzle, { transport }), evaluator: replayEvaluator(puzzle, { transport }), strategy: bfs({ beamWidth: 5 }), maxDepth: 4, branchingFactor: 1000, pruningThreshold: 0, concurrency: 16 });
const tree = () => new ThoughtTree({ problem: puzzle.steps[0]!.x, taskId: 'bench', taskType: 'math_reasoning' });

async function once(on: boolean): Promise<{ ms: number; cpuMs: number; calls: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await explorer().run(tree(), on ? withTelemetry({}, telemetry) : {});
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, calls: result.stats.llmCalls };
}

for (let i = 0; i < 30; i++) await once(i % 2 === 0);
const ROUNDS = 200;
const off: number[] = [];
const on: number[] = [];
const offWall: number[] = [];
const onWall: number[] = [];
let calls = 0;
await provider.forceFlush();
exported = 0;
for (let i = 0; i < ROUNDS; i++) {
  // Alternating, so that drift (GC, the machine's other work) falls on both sides alike.
  const a = await once(false);
  const b = await once(true);
  calls = a.calls;
  off.push((a.cpuMs * 1000) / a.calls);
  on.push((b.cpuMs * 1000) / b.calls);
  offWall.push((a.ms * 1000) / a.calls);
  onWall.push((b.ms * 1000) / b.calls);
}
await provider.forceFlush();
const perCall = on.map((x, i) => x - off[i]!);
const perCallWall = onWall.map((x, i) => x - offWall[i]!);
const round = (x: number) => Math.round(x * 100) / 100;

report('otel', {
  callsPerRun: calls,
  rounds: ROUNDS,
  spansPerRun: Math.round(exported / ROUNDS),
  medianMicrosPerCallOff: round(median(off)),
  medianMicrosPerCallOn: round(median(on)),
  medianMicrosAddedPerCall: round(median(perCall)),
  measure: 'CPU time of the process over each run',
  wallClock: { medianMicrosPerCallOff: round(median(offWall)), medianMicrosPerCallOn: round(median(onWall)), medianMicrosAddedPerCall: round(median(perCallWall)) },
  targets: { microsAddedPerCall: 20 },
});
await provider.shutdown();
