import { defineConfig, type Options } from 'tsup';

const shared: Options = {
  entry: {
    index: 'src/index.ts',
    'testing/index': 'src/testing/index.ts',
    'sqlite/index': 'src/sqlite/index.ts',
    'postgres/index': 'src/postgres/index.ts',
    'ai-sdk/index': 'src/ai-sdk/index.ts',
    'openai/index': 'src/openai/index.ts',
    'mcp/index': 'src/mcp/index.ts',
    'viewer/index': 'src/viewer/index.ts',
    'search/index': 'src/search/index.ts',
    'graph/index': 'src/graph/index.ts',
    'sessions/index': 'src/sessions/index.ts',
    'deliberation/index': 'src/deliberation/index.ts',
    'fractal/index': 'src/fractal/index.ts',
    'cot/index': 'src/cot/index.ts',
    'queue/index': 'src/queue/index.ts',
    'otel/index': 'src/otel/index.ts',
  },
  // Database drivers are optional peers: the host installs the one it uses.
  external: ['better-sqlite3', 'pg', 'pg-boss'],
  sourcemap: true,
  target: 'node20',
  // No rollup tree-shaking pass: esbuild's own leaves 2.6% more code (3.35 MB against 3.26 MB of
  // JavaScript) and the pass cost 11 s of the build's CPU.
};

export default defineConfig([
  // The `tot` command is built with the ESM library, sharing its chunks.
  { ...shared, entry: { ...(shared.entry as Record<string, string>), 'cli/tot': 'src/cli/tot.ts' }, format: 'esm', clean: true, splitting: true, dts: false },
  {
    ...shared,
    format: 'cjs',
    // p-limit (and its yocto-queue) ship as ESM only: the CJS build carries its own copy so that
    // `require('@tot/core')` works on every Node >= 20 without require(esm).
    noExternal: ['p-limit', 'yocto-queue'],
    // Shared chunks, as in ESM: without them each CommonJS entry carried its own copy of every
    // class it uses, so `require('@tot/core/sqlite')` threw a TotError that was not the root's.
    splitting: true,
    dts: false,
  },
  // The declarations once, for both formats (.d.ts and .d.cts): a declaration build per format
  // type-checked the whole program twice, half of the build's CPU.
  { ...shared, format: ['esm', 'cjs'], dts: { only: true } },
]);
