import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { whenAborted } from '../internal/abort.js';
import { callModel } from '../model/call-model.js';
import { fromFunction } from '../model/from-function.js';
import type { LanguageModel } from '../model/types.js';
import type { ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import { Explorer } from '../search/explorer.js';
import { bfs } from '../search/strategies/bfs.js';
import { ThoughtTree } from '../tree/thought-tree.js';
import { renderRunHtml } from '../viewer/render-run-html.js';
import { progress } from './progress.js';
import { openStore } from './open-store.js';

export const DEMO_HELP = `tot demo: Tree-of-Thoughts BFS on Game of 24 puzzles, recorded and shown

Usage: tot demo [options]

The model is simulated, so the demo runs offline: it proposes every step that combines two of the
remaining numbers and values each state by whether 24 can still be reached (an exhaustive search,
standing in for a model's "sure / impossible"); each answer takes a few milliseconds, so the
timeline shows the search's concurrent calls. The search itself is the library's Explorer.

Options:
  --puzzles <n>   how many puzzles (default 3, at most 10)
  --db <file>     record the runs there (default ./tot-demo.db); list them with tot runs <file>
  --out <file>    the page of the first run (default ./game24-run.html)
  --help          this text`;

const PUZZLES = ['4 9 10 13', '1 4 8 8', '2 5 6 6', '3 3 8 8', '1 5 5 5', '4 4 10 10', '2 3 5 12', '1 2 7 7', '6 6 6 6', '5 5 7 11'];

const EPS = 1e-6;
/** Whether `numbers` can still make 24 (every pair, every operation). */
function reachable(numbers: number[]): boolean {
  if (numbers.length === 1) return Math.abs(numbers[0]! - 24) < EPS;
  for (let i = 0; i < numbers.length; i++) {
    for (let j = 0; j < numbers.length; j++) {
      if (i === j) continue;
      const rest = numbers.filter((_, k) => k !== i && k !== j);
      for (const v of combine(numbers[i]!, numbers[j]!)) if (reachable([...rest, v.value])) return true;
    }
  }
  return false;
}
function combine(a: number, b: number): { value: number; text: string }[] {
  const out = [
    { value: a + b, text: `${fmt(a)} + ${fmt(b)}` },
    { value: a - b, text: `${fmt(a)} - ${fmt(b)}` },
    { value: a * b, text: `${fmt(a)} * ${fmt(b)}` },
  ];
  if (Math.abs(b) > EPS) out.push({ value: a / b, text: `${fmt(a)} / ${fmt(b)}` });
  return out;
}
const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(3).replace(/0+$/, ''));
const left = (content: string) => (/left: ([^)]*)\)/.exec(content)?.[1] ?? content).trim().split(/\s+/).map(Number);

/** The simulated model: proposals and values computed, after a short wait (honouring the signal). */
function simulatedModel(latencyMs: number): LanguageModel {
  return fromFunction(
    async (prompt: string, { signal }) => {
      await new Promise<void>((done, fail) => {
        const stop = signal ? whenAborted(signal, () => (clearTimeout(t), fail(signal.reason))) : undefined;
        const t = setTimeout(() => (stop?.(), done()), latencyMs);
      });
      const [verb, numbers] = prompt.split(':');
      const ns = numbers!.trim().split(/\s+/).map(Number);
      if (verb === 'value') return reachable(ns) ? 'sure' : 'impossible';
      const lines: string[] = [];
      for (let i = 0; i < ns.length; i++) {
        for (let j = i + 1; j < ns.length; j++) {
          const rest = ns.filter((_, k) => k !== i && k !== j);
          for (const [a, b] of [[ns[i]!, ns[j]!], [ns[j]!, ns[i]!]] as const) {
            for (const v of combine(a, b)) if (v.value >= 0 && !(a < b && (v.text.includes('+') || v.text.includes('*')))) lines.push(`${v.text} = ${fmt(v.value)} (left: ${[...rest, v.value].map(fmt).join(' ')})`);
          }
        }
      }
      return lines.join('\n');
    },
    { modelId: 'simulated-game24' },
  );
}

/** A run's rejection: its message, then what its causes said. */
function failureText(error: unknown): string {
  const lines = [error instanceof Error ? error.message : String(error)];
  for (let cause = (error as { cause?: unknown }).cause, depth = 0; cause !== undefined && depth < 3; cause = (cause as { cause?: unknown }).cause, depth++) {
    lines.push(`  cause: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  return lines.join('\n');
}

/** Runs the demo; returns the exit code. */
export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { puzzles: { type: 'string', default: '3' }, db: { type: 'string', default: './tot-demo.db' }, out: { type: 'string', default: './game24-run.html' }, help: { type: 'boolean', default: false } }, strict: true });
  if (values.help) {
    process.stdout.write(`${DEMO_HELP}\n`);
    return 0;
  }
  const count = Number(values.puzzles);
  if (!Number.isInteger(count) || count < 1 || count > PUZZLES.length) throw new Error(`--puzzles: send a whole number from 1 to ${PUZZLES.length}`);
  const model = simulatedModel(4);
  const generator: ThoughtGenerator = {
    async generate({ parent }, options = {}) {
      const m = options.runModel ? options.runModel(model) : model;
      const r = await callModel(m, { messages: [{ role: 'user', content: `propose: ${left(parent.content).map(fmt).join(' ')}` }], tags: { role: 'generator' } }, options.signal ? { signal: options.signal } : {});
      return r.outputs[0]!.split('\n').filter(Boolean).map((content) => ({ content }));
    },
  };
  const evaluator: ThoughtEvaluator = {
    async evaluate({ candidates }, options = {}) {
      const m = options.runModel ? options.runModel(model) : model;
      const evaluations = await Promise.all(
        candidates.map(async (node) => {
          const r = await callModel(m, { messages: [{ role: 'user', content: `value: ${left(node.content).map(fmt).join(' ')}` }], tags: { role: 'evaluator' } }, options.signal ? { signal: options.signal } : {});
          const sure = r.outputs[0] === 'sure';
          return { nodeId: node.id, score: sure ? 10 : 0.01, confidence: 1, reasoning: r.outputs[0]! };
        }),
      );
      return { evaluations, ranking: [], pruningSuggestions: [] };
    },
  };
  const store = await openStore(values.db!);
  const bar = progress(count, 'puzzles');
  const lines: string[] = [];
  let firstEvents: unknown[] | undefined;
  let failure: string | undefined;
  try {
    for (const numbers of PUZZLES.slice(0, count)) {
      const explorer = new Explorer({ generator, evaluator, strategy: bfs({ beamWidth: 5 }), maxDepth: 3, branchingFactor: 100, pruningThreshold: 1, taskType: 'math_reasoning' });
      const tree = new ThoughtTree({ problem: numbers, taskId: `game24 ${numbers}`, taskType: 'math_reasoning' });
      const runId = `game24-${numbers.replace(/ /g, '-')}-${Date.now().toString(36)}`;
      let r: Awaited<ReturnType<Explorer['run']>>;
      try {
        r = await explorer.run(tree, { store, runId });
      } catch (error) {
        failure = `${numbers}: the run failed: ${failureText(error)}`;
        break;
      }
      if (r.stopReason === 'error') {
        failure = `${numbers}: every call failed: ${r.detail?.kind === 'error' ? `${r.detail.code}: ${r.detail.message}` : r.errors[0]?.message ?? ''}`;
        break;
      }
      const finals = [...tree.all()].filter((n) => n.depth === 3 && Math.abs(left(n.content)[0]! - 24) < EPS);
      lines.push(`${numbers}: ${finals.length > 0 ? 'solved' : 'not solved'} — ${r.stats.totalNodes} nodes, ${r.stats.llmCalls} calls, ${r.stopReason} (run ${runId})`);
      if (!firstEvents) {
        firstEvents = [];
        for await (const e of store.readStream(runId)) firstEvents.push(e);
      }
      bar.tick(numbers);
    }
  } finally {
    bar.done();
    await store.close();
  }
  if (failure !== undefined) {
    for (const line of lines) process.stdout.write(`${line}\n`);
    process.stderr.write(`tot demo: ${failure}\n`);
    return 1;
  }
  const out = resolve(values.out!);
  writeFileSync(out, renderRunHtml(firstEvents as never, { title: `Game of 24: ${PUZZLES[0]}` }));
  for (const line of lines) process.stdout.write(`${line}\n`);
  process.stdout.write(`\nThe first run: ${out}\nEvery run: tot runs ${values.db} · tot view ${values.db} --run <id>\n`);
  return 0;
}
