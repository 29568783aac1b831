// Every ```ts block of the README and the guides compiles against the built package, imported as a
// user imports it ('@tot/core', '@tot/core/testing', …), and every block marked
// <!-- doctest: run --> runs and exits 0. The blocks and their markers: scripts/doc-blocks.ts.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDocBlocks, type DocBlock } from '../../scripts/doc-blocks.js';
import { consumerProject, root } from '../package/consumer-project.js';

const blocks = allDocBlocks(root);

/**
 * Most guide blocks are fragments that use names an earlier block or the prose set up (`model`,
 * `store`, `signal`). In a block not marked run, an error about such a name is not the block's
 * fault; nor is a provider package the repository does not install. Every other error is: a
 * name the package no longer exports, a wrong option, a wrong type. A block marked run must
 * compile whole.
 */
const FRAGMENT_ERRORS = /error TS(2304|2552|18004|7006|7031): |error TS2307: Cannot find module '(?!@tot\/core)/;
const fileOf = (b: DocBlock) => `blocks/${b.file.replaceAll('/', '-').replace(/\.md$/, '')}-${b.line}.ts`;

let dir: string;
/** tsc's errors by block file, each as `file.md:line: message` (the line in the markdown). */
const errors = new Map<string, string[]>();

beforeAll(async () => {
  dir = await consumerProject('tot-doc-blocks-');
  mkdirSync(join(dir, 'blocks'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'doc-blocks', private: true, type: 'module' }));
  // What a new ESM project gets from `tsc --init`, strict, with Node's types.
  const compilerOptions = { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, esModuleInterop: true, skipLibCheck: true, noEmit: true, types: ['node'] };
  const checked = blocks.filter((b) => b.mode !== 'skip');
  // `export {}` makes each block a module of its own, so two blocks may declare the same names.
  for (const b of checked) writeFileSync(join(dir, fileOf(b)), `${b.code}export {};\n`);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: checked.map(fileOf) }));
  const r = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });
  for (const b of checked) errors.set(fileOf(b), []);
  let last: string[] | undefined;
  for (const line of `${r.stdout}${r.stderr}`.split('\n')) {
    const m = /^(blocks\/[^(]+)\((\d+),\d+\): (.*)$/.exec(line);
    const block = m ? checked.find((b) => fileOf(b) === m[1]) : undefined;
    if (m && block) {
      last = block.mode !== 'run' && FRAGMENT_ERRORS.test(`error ${m[3]}`) ? [] : errors.get(m[1]!)!;
      last.push(`${block.file}:${block.line + Number(m[2])}: ${m[3]}`);
    } else if (line.startsWith(' ') && last) last.push(line);
    else if (line.trim() !== '') {
      last = undefined;
      // An error outside the blocks (a declaration of the package itself) fails every block.
      for (const list of errors.values()) list.push(line);
    }
  }
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the code in the README and the guides', () => {
  it('has blocks to check', () => {
    expect(blocks.filter((b) => b.mode !== 'skip').length).toBeGreaterThan(0);
  });

  for (const b of blocks) {
    const where = `${b.file}:${b.line}`;
    if (b.mode === 'skip') {
      it(`${where} is left out of the check, for a stated reason: ${b.reason}`, () => {
        expect(b.reason.length).toBeGreaterThan(0);
      });
      continue;
    }
    it(`${where} compiles against the built package`, () => {
      expect(errors.get(fileOf(b))!.join('\n')).toBe('');
    });
    if (b.mode === 'run') {
      it(`${where} runs and exits 0`, () => {
        const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
        const r = spawnSync(process.execPath, [tsx, fileOf(b)], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
        expect(`exit ${r.status}\n${r.stderr}`).toBe('exit 0\n');
      }, 90_000);
    }
  }
});
