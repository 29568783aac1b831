/**
 * Structured output on hostile replies: for every pathological shape of
 * test/structured/fixtures/hostile-replies.ts, at 100 KB and 1 MB, in JSON and YAML, the median
 * time `parseStructured` takes (5 runs), as milliseconds per 100 KB; and how long
 * `generateStructured` takes to settle after its signal aborts in the middle of reading a 1 MB
 * reply (median of 15). Targets: ≤ 50 ms per 100 KB for every reply, ≤ 100 ms from abort to
 * settled.
 */
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

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const worst = rows.reduce((a, b) => (b.msPer100KB > a.msPer100KB ? b : a));
console.table(rows.map((r) => ({ ...r, size: `${Math.round(r.size / 1000)} KB` })));
console.table(abortRows);
report('hostile-replies', {
  targets: { msPer100KB: 50, abortMs: 100 },
  worst: { shape: worst.shape, format: worst.format, size: worst.size, msPer100KB: worst.msPer100KB },
  abort: abortRows,
  rows,
});
