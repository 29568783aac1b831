import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedTarball } from './consumer-project.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

const entries = ['index', 'testing/index', 'sqlite/index', 'postgres/index', 'ai-sdk/index', 'openai/index'];

// The packed package's dependencies and the @types its declarations import, taken from the repo,
// and the provider clients a consumer passes to the adapters.
const linked = ['zod', '@standard-schema/spec', 'eventemitter3', 'yaml', 'better-sqlite3', 'pg', '@types/node', '@types/better-sqlite3', '@types/pg', 'openai', '@ai-sdk/openai-compatible'];

/** A typed import from every subpath; the @ts-expect-error lines fail if a subpath came back as `any`. */
const consumer = `
import { ThoughtTree, type LanguageModel } from '@tot/core';
import { mockModel } from '@tot/core/testing';
import { SqliteEventStore, type SqliteEventStoreOptions } from '@tot/core/sqlite';
import { PostgresEventStore, type PostgresEventStoreOptions } from '@tot/core/postgres';
import { fromAiSdk, fromAiSdkEmbedding } from '@tot/core/ai-sdk';
import { openAIEmbedder, openAIModel } from '@tot/core/openai';
import { Explorer } from '@tot/core/search';
import { OperationGraph } from '@tot/core/graph';
import { SessionEngine } from '@tot/core/sessions';
import { Deliberation } from '@tot/core/deliberation';
import { FractalSolver } from '@tot/core/fractal';
import { ChainOfThoughtNode } from '@tot/core/cot';
import OpenAI from 'openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

const tree: ThoughtTree = new ThoughtTree({ problem: '4 9 10 13' });
const model: LanguageModel = mockModel('{"score": 7}');
const sqlite: SqliteEventStoreOptions = { path: ':memory:' };
const postgres: PostgresEventStoreOptions = { connectionString: 'postgres://localhost/tot' };
export const used = [tree, model, new SqliteEventStore(sqlite), new PostgresEventStore(postgres)];
const client = new OpenAI({ apiKey: 'k' });
const local = createOpenAICompatible({ name: 'local', baseURL: 'http://localhost:11434/v1' });
const models: LanguageModel[] = [openAIModel({ client, model: 'gpt-4o-mini' }), fromAiSdk(local.chatModel('llama3.1'))];
export const adapters = [models, openAIEmbedder({ client, model: 'text-embedding-3-small' }), fromAiSdkEmbedding(local.embeddingModel('nomic-embed-text'))];

export const runners = [Explorer, OperationGraph, SessionEngine, Deliberation, FractalSolver, ChainOfThoughtNode];

// @ts-expect-error problem is a string
new ThoughtTree({ problem: 42 });
// @ts-expect-error an engine needs a store
new SessionEngine({});
// @ts-expect-error a response is a string, an object with outputs, an Error or a function
mockModel(42);
// @ts-expect-error path is a string
new SqliteEventStore({ path: 1 });
// @ts-expect-error tablePrefix is a string
new PostgresEventStore({ tablePrefix: 1 });
// @ts-expect-error a model id string is not an AI SDK model
fromAiSdk('gpt-4o-mini');
// @ts-expect-error the client is required
openAIModel({ model: 'gpt-4o-mini' });
`;

// esModuleInterop: without it the declarations' `import Database from 'better-sqlite3'` (and zod's
// own locale declarations) are errors under skipLibCheck: false; `tsc --init` turns it on.
const compilerOptions = { target: 'ES2022', strict: true, esModuleInterop: true, skipLibCheck: false, noEmit: true, types: ['node'] };

let dir: string;
const pkg = () => join(dir, 'node_modules/@tot/core');

/**
 * Type-checks a project as `tsc -p` does, with the compiler in this process (a tsc process per
 * project spent most of its time starting and checking other packages' declarations). The
 * declarations are checked as under skipLibCheck: false, but only the package's own and the
 * consumer files: what other packages ship is theirs to check.
 */
function tsc(project: string) {
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, project), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  })!;
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, configFileParsingDiagnostics: config.errors });
  const checked = (f: ts.SourceFile) => f.fileName.startsWith(`${pkg()}/`) || config.fileNames.includes(f.fileName);
  const diagnostics = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getSourceFiles().filter(checked).flatMap((f) => program.getSemanticDiagnostics(f)),
  ];
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  return {
    errors: ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' }),
    files: program.getSourceFiles().map((f) => f.fileName),
  };
}

describe('a TypeScript consumer of the packed package', () => {
  beforeAll(async () => {
    // realpath: tsc lists real paths, and the temp dir may sit behind a symlink (macOS /var).
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'tot-consumer-')));
    // Packed rather than linked, so `files`, `exports` and `typesVersions` are what a user gets.
    const tarball = await packedTarball();
    mkdirSync(pkg(), { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', pkg(), '--strip-components=1']);
    for (const name of linked) {
      mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'junction');
    }

    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    writeFileSync(join(dir, 'consumer.ts'), consumer);
    writeFileSync(join(dir, 'consumer.mts'), consumer);
    // module commonjs implies node10 resolution, which ignores `exports`.
    writeFileSync(join(dir, 'tsconfig.cjs.json'), JSON.stringify({ compilerOptions: { ...compilerOptions, module: 'commonjs' }, files: ['consumer.ts'] }));
    // node16: consumer.ts is CJS (require condition), consumer.mts is ESM (import condition).
    writeFileSync(join(dir, 'tsconfig.node16.json'), JSON.stringify({ compilerOptions: { ...compilerOptions, module: 'node16' }, files: ['consumer.ts', 'consumer.mts'] }));
  }, 240_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('compiles with "module": "commonjs" (node10 resolution), every subpath typed from its .d.cts', () => {
    const { errors, files } = tsc('tsconfig.cjs.json');
    expect(errors).toBe('');
    for (const entry of entries) {
      expect(files).toContain(join(pkg(), `dist/${entry}.d.cts`).replaceAll('\\', '/'));
    }
  }, 120_000);

  it('still compiles with "module": "node16", from CJS and from ESM', () => {
    const { errors, files } = tsc('tsconfig.node16.json');
    expect(errors).toBe('');
    for (const entry of entries) {
      expect(files).toContain(join(pkg(), `dist/${entry}.d.cts`).replaceAll('\\', '/'));
      expect(files).toContain(join(pkg(), `dist/${entry}.d.ts`).replaceAll('\\', '/'));
    }
  }, 120_000);
});
