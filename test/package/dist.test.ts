import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureDist } from '../helpers/ensure-dist.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }).trim();

/** The same small program for both module systems: a tree, a limited mock model and structured output. */
const body = `
  const tree = new core.ThoughtTree({ problem: '4 9 10 13' });
  tree.addChild(tree.rootId, { content: '13 - 9 = 4' });
  const model = core.withConcurrency(testing.mockModel('{"score": 7}'), { limit: 2 });
  core.generateStructured(model, { prompt: 'rate', schema: z.object({ score: z.number() }) }).then((r) =>
    console.log(JSON.stringify({ size: tree.size, score: r.value.score, typed: core.TotError.isInstance(new core.TotError('ABORTED', 'x')) })),
  );
`;

describe('the built package', () => {
  beforeAll(async () => {
    // `npm test` on a fresh clone has no dist yet; CI builds before testing.
    await ensureDist();
  }, 180_000);

  it('loads through require(), with p-limit bundled rather than required', () => {
    const cjs = `const core = require('@tot/core'); const testing = require('@tot/core/testing'); const { z } = require('zod');${body}`;
    expect(JSON.parse(node(['-e', cjs]))).toEqual({ size: 2, score: 7, typed: true });
    expect(readFileSync(`${root}dist/index.cjs`, 'utf8')).not.toMatch(/require\(["']p-limit["']\)/);
  });

  it('loads through import', () => {
    const esm = `import * as core from '@tot/core'; import * as testing from '@tot/core/testing'; import { z } from 'zod';${body}`;
    expect(JSON.parse(node(['--input-type=module', '-e', esm]))).toEqual({ size: 2, score: 7, typed: true });
  });

  it('loads the database subpaths both ways, with their drivers as external peers', () => {
    const cjs = `const { SqliteEventStore } = require('@tot/core/sqlite'); const { PostgresEventStore } = require('@tot/core/postgres');
      const s = new SqliteEventStore({ path: ':memory:' });
      s.append('s', [{ type: 't', data: 1, idempotencyKey: 'k' }], { expectedVersion: 'no_stream' }).then((r) => console.log(r.nextExpectedVersion, typeof PostgresEventStore));`;
    expect(node(['-e', cjs])).toBe('0 function');
    const esm = `import { SqliteEventStore } from '@tot/core/sqlite'; import { PostgresEventStore } from '@tot/core/postgres'; console.log(typeof SqliteEventStore, typeof PostgresEventStore);`;
    expect(node(['--input-type=module', '-e', esm])).toBe('function function');
    expect(readFileSync(`${root}dist/sqlite/index.cjs`, 'utf8')).toMatch(/require\(["']better-sqlite3["']\)/);
  });

  it('loads the reasoning subpaths both ways, each with its runner', () => {
    const names = "{ search: 'Explorer', graph: 'OperationGraph', sessions: 'SessionEngine', deliberation: 'Deliberation', fractal: 'FractalSolver', cot: 'ChainOfThoughtNode' }";
    const cjs = `const names = ${names}; console.log(Object.entries(names).map(([p, n]) => typeof require('@tot/core/' + p)[n]).join(' '));`;
    expect(node(['-e', cjs])).toBe('function function function function function function');
    const esm = `const names = ${names}; const types = []; for (const [p, n] of Object.entries(names)) types.push(typeof (await import('@tot/core/' + p))[n]); console.log(types.join(' '));`;
    expect(node(['--input-type=module', '-e', esm])).toBe('function function function function function function');
  });

  it('keeps the moved runners out of the root, and the deprecated engine names in it for one minor', () => {
    const esm = `import * as core from '@tot/core'; import { SessionEngine, GotEngine } from '@tot/core/sessions';
      console.log(JSON.stringify({ moved: ['OperationGraph', 'SessionEngine', 'Deliberation', 'FractalSolver', 'ChainOfThoughtNode'].filter((n) => n in core), search: typeof core.Explorer, alias: core.GotEngine === SessionEngine && GotEngine === SessionEngine }));`;
    expect(JSON.parse(node(['--input-type=module', '-e', esm]))).toEqual({ moved: [], search: 'function', alias: true });
  });

  it('loads the queue subpath both ways, and pg-boss only when a PostgreSQL queue starts', () => {
    const cjs = `const q = require('@tot/core/queue'); console.log(typeof q.defineFlow, typeof q.localQueue, typeof q.pgBossQueue, Object.keys(require.cache).some((k) => k.includes('pg-boss')));`;
    expect(node(['-e', cjs])).toBe('function function function false');
    const esm = `import { defineFlow, localQueue } from '@tot/core/queue'; console.log(typeof defineFlow, typeof localQueue);`;
    expect(node(['--input-type=module', '-e', esm])).toBe('function function');
  });

  it('loads the provider adapter subpaths both ways without importing a provider package', () => {
    const cjs = `const { fromAiSdk, fromAiSdkEmbedding } = require('@tot/core/ai-sdk'); const { openAIModel, openAIEmbedder } = require('@tot/core/openai');
      console.log([fromAiSdk, fromAiSdkEmbedding, openAIModel, openAIEmbedder].map((f) => typeof f).join(' '));`;
    expect(node(['-e', cjs])).toBe('function function function function');
    const esm = `import { fromAiSdk } from '@tot/core/ai-sdk'; import { openAIModel } from '@tot/core/openai'; console.log(typeof fromAiSdk, typeof openAIModel);`;
    expect(node(['--input-type=module', '-e', esm])).toBe('function function');
    // The adapters read clients and models by shape: a user installs only the SDK they use.
    for (const file of ['ai-sdk/index.cjs', 'ai-sdk/index.js', 'openai/index.cjs', 'openai/index.js']) {
      expect(readFileSync(`${root}dist/${file}`, 'utf8'), file).not.toMatch(/(require\(|from )["'](openai|@ai-sdk\/[^"']+|ai)["']/);
    }
  });

  /** A script that loads every entry and prints each name two entries export as different values. */
  const twinCheck = (load: string) => `
    const pkg = require('./package.json');
    const entries = Object.keys(pkg.exports).filter((k) => k !== './package.json').map((k) => '@tot/core' + k.slice(1));
    (async () => {
      const seen = new Map();
      const twins = [];
      let shared = 0;
      for (const entry of entries) {
        const m = ${load};
        for (const [name, value] of Object.entries(m)) {
          if (typeof value !== 'function' && (typeof value !== 'object' || value === null)) continue;
          const first = seen.get(name);
          if (!first) seen.set(name, { entry, value });
          else if (first.value !== value) twins.push(name + ': ' + first.entry + ' and ' + entry);
          else shared++;
        }
      }
      console.log(JSON.stringify({ twins, shared }));
    })();`;

  it('gives a name exported by several entries one value through require(), so instanceof holds across subpaths', () => {
    const out = JSON.parse(node(['-e', twinCheck('require(entry)')])) as { twins: string[]; shared: number };
    expect(out.twins).toEqual([]);
    // The check compared something: the search's eight runtime names are in the root and in @tot/core/search.
    expect(out.shared).toBeGreaterThanOrEqual(8);
  });

  it('gives a name exported by several entries one value through import', () => {
    const out = JSON.parse(node(['-e', twinCheck('await import(entry)')])) as { twins: string[]; shared: number };
    expect(out.twins).toEqual([]);
    expect(out.shared).toBeGreaterThanOrEqual(8);
  });

  it('throws from a subpath, through require(), an error the root entry recognises with instanceof', () => {
    const cjs = `const { TotError } = require('@tot/core'); const { SqliteEventStore } = require('@tot/core/sqlite');
      try { new SqliteEventStore({ path: ':memory:', bogus: 1 }); } catch (e) { console.log(e instanceof TotError, e.code); }`;
    expect(node(['-e', cjs])).toBe('true INVALID_ARGUMENT');
  });

  it('recognises a TotError made by the CJS copy from the ESM copy', () => {
    const code = `import { createRequire } from 'node:module'; import { TotError } from '@tot/core';
      const cjs = createRequire(import.meta.url)('@tot/core');
      console.log(TotError.isInstance(new cjs.TotError('ABORTED', 'x')));`;
    expect(node(['--input-type=module', '-e', code])).toBe('true');
  });
});
