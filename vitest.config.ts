import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      '@tot/core/testing': fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      '@tot/core/viewer': fileURLToPath(new URL('./src/viewer/index.ts', import.meta.url)),
      '@tot/core/mcp': fileURLToPath(new URL('./src/mcp/index.ts', import.meta.url)),
      '@tot/core/sqlite': fileURLToPath(new URL('./src/sqlite/index.ts', import.meta.url)),
      '@tot/core/postgres': fileURLToPath(new URL('./src/postgres/index.ts', import.meta.url)),
      '@tot/core/ai-sdk': fileURLToPath(new URL('./src/ai-sdk/index.ts', import.meta.url)),
      '@tot/core/openai': fileURLToPath(new URL('./src/openai/index.ts', import.meta.url)),
      '@tot/core/search': fileURLToPath(new URL('./src/search/index.ts', import.meta.url)),
      '@tot/core/graph': fileURLToPath(new URL('./src/graph/index.ts', import.meta.url)),
      '@tot/core/sessions': fileURLToPath(new URL('./src/sessions/index.ts', import.meta.url)),
      '@tot/core/deliberation': fileURLToPath(new URL('./src/deliberation/index.ts', import.meta.url)),
      '@tot/core/fractal': fileURLToPath(new URL('./src/fractal/index.ts', import.meta.url)),
      '@tot/core/otel': fileURLToPath(new URL('./src/otel/index.ts', import.meta.url)),
      '@tot/core/cot': fileURLToPath(new URL('./src/cot/index.ts', import.meta.url)),
      '@tot/core': fileURLToPath(new URL('./src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    globalSetup: ['test/setup/dist.ts', 'test/setup/postgres.ts'],
    // Each worker's files use its own PostgreSQL server. TOT_CPU_LOG=.tmp/cpu.jsonl: each file's
    // wall time and CPU (its own and its child processes').
    setupFiles: ['test/setup/postgres-worker.ts', ...(process.env.TOT_CPU_LOG ? ['test/setup/cpu-meter.ts'] : [])],
    testTimeout: 20_000,
    // The files of a worker share one module graph instead of importing the library afresh each:
    // the whole suite took 541 s with isolation and 373 s without on the 2-core machine (imports
    // 92 s → 14 s of it). Every file creates its own stores, models and servers; none mocks modules.
    isolate: false,
    // Two workers, each with a PostgreSQL server of its own (test/setup/postgres.ts). On the 2-core
    // machine, alternating whole runs: one worker (vitest's default there) 439 and 472 s, two 372
    // and 428 s; three took 314–348 s, two 330–336 s in the same hour. Every file waits on something
    // part of its time (child processes, Chromium, PostgreSQL, timers), which the other worker's
    // files fill; with two the cores are already busy all the time (vmstat: no idle). On a larger
    // machine, vitest's own default (a worker per core but one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
