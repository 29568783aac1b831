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
  },
  // Database drivers are optional peers: the host installs the one it uses.
  external: ['better-sqlite3', 'pg'],
  dts: true,
  sourcemap: true,
  target: 'node20',
  treeshake: true,
};

export default defineConfig([
  // The `tot` command is built with the ESM library, sharing its chunks.
  { ...shared, entry: { ...(shared.entry as Record<string, string>), 'cli/tot': 'src/cli/tot.ts' }, format: 'esm', clean: true, splitting: true },
  {
    ...shared,
    format: 'cjs',
    // p-limit (and its yocto-queue) ship as ESM only: the CJS build carries its own copy so that
    // `require('@tot/core')` works on every Node >= 20 without require(esm).
    noExternal: ['p-limit', 'yocto-queue'],
  },
]);
