/**
 * Structured output on hostile replies: for every pathological shape of
 * test/structured/fixtures/hostile-replies.ts, at 100 KB and 1 MB, in JSON and YAML, the median
 * time `parseStructured` takes (5 runs), as milliseconds per 100 KB; and how long
 * `generateStructured` takes to settle after its signal aborts in the middle of reading a 1 MB
 * reply (median of 15). Targets: ≤ 50 ms per 100 KB for every reply, ≤ 100 ms from abort to
 * settled.
 *
 * Long replies: while `generateStructured` reads each 1 MB shape (the default `maxReplyChars`
 * reads up to 1,000,000 characters), and 4M / 16M open brackets and 100 MB of prose with the
 * limit raised, the longest the event loop went without a turn (a 1 ms interval timer's longest
 * gap; and the most CPU time the process used between two turns, which other processes do not
 * inflate), and the time from an abort falling due during the read to the call settling (median
 * of 3). A 100 MB reply under the default limit: the time it takes to be refused. Target: no stall
 * and no abort-to-settle over 100 ms.
 */
import { loadavg } from 'node:os';
import { z } from 'zod';
import { generateStructured, parseStructured } from '../src/index.js';
import { mockModel } from '../src/testing/index.js';
import { hostileReplies } from '../test/structured/fixtures/hostile-replies.js';
import { median, report } from './harness.js';

const RUNS = 5;
const schema = z.object({ score: z.number(), reasoning: z.string() });
const formats = ['json', 'yaml'] as const;

interface Row {
  shape: string;
  format: 'json' | 'yaml';
  size: number;
  medianMs: number;
  msPer100KB: number;
  outcome: string;
}

// The machine's load when the run starts: stalls are wall-clock gaps, and other processes lengthen them.
const loadAtStart = loadavg()[0];
const rows: Row[] = [];
for (const size of [100_000, 1_000_000]) {
  for (const shape of hostileReplies) {
    const text = shape.make(size);
    for (const format of formats) {
      const times: number[] = [];
      let outcome = '';
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        const r = parseStructured(text, { schema, format });
        times.push(performance.now() - started);
        outcome = r.success ? 'value' : r.reason;
      }
      const medianMs = median(times);
      rows.push({ shape: shape.name, format, size: text.length, medianMs: round(medianMs), msPer100KB: round((medianMs * 100_000) / text.length), outcome });
    }
  }
}

/**
 * Abort latency: a 1 MB reply the reader needs long for (four YAML documents under the full
 * reader's length limit; forty unfinished JSON arrays, each read to its end before it fails),
 * aborted soon after the model answers. Measured from the abort to the rejection; a run whose
 * read ends before the abort fires is counted apart.
 */
const slowReplies: Record<'json' | 'yaml', { reply: string; abortAfterMs: number }> = {
  yaml: { reply: Array.from({ length: 4 }, () => `\`\`\`yaml\n# notes\n${'- [a, {b: c}]\n'.repeat(18_000)}\`\`\``).join('\n'), abortAfterMs: 10 },
  json: { reply: Array.from({ length: 40 }, () => `\`\`\`json\n[${'{"a": [1, {"b": "c"}]},'.repeat(1_100)}\n\`\`\``).join('\n'), abortAfterMs: 1 },
};
/** `medianMs`/`maxMs`: abort to settled, over the runs where the abort fired first; `medianReadMs`: answer to settled, every run. */
const abortRows: { format: string; replyKB: number; abortAfterMs: number; medianMs: number | null; maxMs: number | null; aborted: number; runs: number; medianReadMs: number }[] = [];
for (const format of formats) {
  const { reply, abortAfterMs } = slowReplies[format];
  const latencies: number[] = [];
  const settleTimes: number[] = [];
  let aborted = 0;
  for (let i = 0; i < 15; i++) {
    const controller = new AbortController();
    let abortedAt = 0;
    let answeredAt = 0;
    const model = mockModel(() => {
      answeredAt = performance.now();
      setTimeout(() => {
        abortedAt = performance.now();
        controller.abort();
      }, abortAfterMs);
      return reply;
    });
    try {
      await generateStructured(model, { prompt: 'p', schema, format, maxRepairs: 0, signal: controller.signal });
    } catch (error) {
      if ((error as { code?: string }).code === 'ABORTED') aborted++;
    }
    const settledAt = performance.now();
    settleTimes.push(settledAt - answeredAt);
    if (abortedAt > 0) latencies.push(settledAt - abortedAt);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  abortRows.push({ format, replyKB: Math.round(reply.length / 1000), abortAfterMs, medianMs: latencies.length ? round(median(latencies)) : null, maxMs: latencies.length ? round(Math.max(...latencies)) : null, aborted, runs: 15, medianReadMs: round(median(settleTimes)) });
}

/** A flat string, as a reply read from a response is: `repeat` makes a rope that would be flattened inside the read. */
function flat(unit: string, length: number): string {
  const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  text.charCodeAt(text.length - 1);
  return text;
}

/**
 * The longest gap between the ticks of a 1 ms interval timer while `work` runs, and how long it
 * ran. `stallCpuMs`: the most CPU time the process used between two ticks — the gap without the
 * time other processes held the CPU, so a figure a loaded machine does not inflate.
 */
async function longestStall(work: () => Promise<unknown>): Promise<{ stallMs: number; stallCpuMs: number; readMs: number }> {
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let last = performance.now();
  let lastCpu = cpuMs();
  let longest = 0;
  let longestCpu = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = cpuMs();
    longest = Math.max(longest, now - last);
    longestCpu = Math.max(longestCpu, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(tick, 1);
  const started = performance.now();
  last = started;
  lastCpu = cpuMs();
  await work().catch(() => undefined);
  tick();
  const ended = performance.now();
  clearInterval(timer);
  return { stallMs: longest, stallCpuMs: longestCpu, readMs: ended - started };
}

/** From an abort falling due `afterMs` after the reply arrives to the call settling (the abort cannot fire while the loop is held). */
async function abortToSettle(reply: string, format: 'json' | 'yaml', maxReplyChars: number, afterMs: number): Promise<{ ms: number; outcome: string }> {
  const controller = new AbortController();
  let dueAt = 0;
  const model = mockModel(() => {
    dueAt = performance.now() + afterMs;
    setTimeout(() => controller.abort(), afterMs);
    return reply;
  });
  let outcome = 'value';
  try {
    await generateStructured(model, { prompt: 'p', schema, format, maxRepairs: 0, maxReplyChars, signal: controller.signal });
  } catch (error) {
    outcome = (error as { code?: string }).code ?? 'error';
  }
  return { ms: Math.max(0, performance.now() - dueAt), outcome };
}

const LONG_RUNS = 3;
const RAISED = 200_000_000;
const stallRows: { reply: string; format: string; maxReplyChars: number; medianStallMs: number; medianStallCpuMs: number; medianReadMs: number; medianAbortToSettleMs: number; abortOutcome: string }[] = [];
const longReplies: { reply: string; make: () => string; formats: ('json' | 'yaml')[]; maxReplyChars: number }[] = [
  ...hostileReplies.map((h) => ({ reply: `1 MB of ${h.name}`, make: () => h.make(1_000_000), formats: [...formats], maxReplyChars: 1_000_000 })),
  { reply: '4M open braces', make: () => flat('{', 4_000_000), formats: ['json'], maxReplyChars: RAISED },
  { reply: '16M open braces', make: () => flat('{', 16_000_000), formats: [...formats], maxReplyChars: RAISED },
  { reply: '16M open brackets', make: () => flat('[', 16_000_000), formats: [...formats], maxReplyChars: RAISED },
  { reply: '100 MB of prose', make: () => flat('word ', 100_000_000), formats: [...formats], maxReplyChars: RAISED },
  { reply: '100 MB of prose', make: () => flat('word ', 100_000_000), formats: ['json'], maxReplyChars: 1_000_000 },
];
for (const { reply: name, make, formats: replyFormats, maxReplyChars } of longReplies) {
  const text = make();
  text.charCodeAt(text.length - 1);
  for (const format of replyFormats) {
    const stalls: number[] = [];
    const stallsCpu: number[] = [];
    const reads: number[] = [];
    const settles: number[] = [];
    let abortOutcome = '';
    for (let i = 0; i < LONG_RUNS; i++) {
      const { stallMs, stallCpuMs, readMs } = await longestStall(() => generateStructured(mockModel(text), { prompt: 'p', schema, format, maxRepairs: 0, maxReplyChars }));
      stalls.push(stallMs);
      stallsCpu.push(stallCpuMs);
      reads.push(readMs);
      const settled = await abortToSettle(text, format, maxReplyChars, 5);
      settles.push(settled.ms);
      abortOutcome = settled.outcome;
    }
    stallRows.push({ reply: name, format, maxReplyChars, medianStallMs: round(median(stalls)), medianStallCpuMs: round(median(stallsCpu)), medianReadMs: round(median(reads)), medianAbortToSettleMs: round(median(settles)), abortOutcome });
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const worst = rows.reduce((a, b) => (b.msPer100KB > a.msPer100KB ? b : a));
console.table(rows.map((r) => ({ ...r, size: `${Math.round(r.size / 1000)} KB` })));
console.table(abortRows);
console.table(stallRows);
const worstStall = stallRows.reduce((a, b) => (b.medianStallMs > a.medianStallMs ? b : a));
const worstStallCpu = stallRows.reduce((a, b) => (b.medianStallCpuMs > a.medianStallCpuMs ? b : a));
const worstSettle = stallRows.reduce((a, b) => (b.medianAbortToSettleMs > a.medianAbortToSettleMs ? b : a));
report('hostile-replies', {
  targets: { msPer100KB: 50, abortMs: 100, stallMs: 100 },
  loadAverage: { atStart: round(loadAtStart ?? 0), atEnd: round(loadavg()[0] ?? 0) },
  worst: { shape: worst.shape, format: worst.format, size: worst.size, msPer100KB: worst.msPer100KB },
  worstStall: { reply: worstStall.reply, format: worstStall.format, medianStallMs: worstStall.medianStallMs },
  worstStallCpu: { reply: worstStallCpu.reply, format: worstStallCpu.format, medianStallCpuMs: worstStallCpu.medianStallCpuMs },
  worstAbortToSettle: { reply: worstSettle.reply, format: worstSettle.format, medianAbortToSettleMs: worstSettle.medianAbortToSettleMs },
  abort: abortRows,
  stalls: stallRows,
  rows,
});
