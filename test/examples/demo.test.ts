import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from '../helpers/bundle-fixture.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
// The examples bundled with their sources, run under plain node: tsx would compile them on every start.
const bundles: Record<string, string> = {};
beforeAll(async () => {
  for (const script of ['examples/game24/main.ts', 'examples/thought-tree-mermaid/main.ts']) bundles[script] = await bundleFixture(script);
}, 120_000);
const run = (script: string, args: string[] = []) =>
  execFileSync(process.execPath, [bundles[script]!, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' } });

describe('npm run demo (examples/game24)', () => {
  it('solves the first puzzles from the replayed GPT-4 run, one line each, and writes the first search as a page', () => {
    const page = join(mkdtempSync(join(tmpdir(), 'tot-demo-')), 'game24-run.html');
    const out = run('examples/game24/main.ts', ['--out', page]);
    expect(out).toContain('Replay mode');
    expect(out).toContain('Puzzle 900: 4 5 6 10 — solved: (4 * 5) + (10 - 6) = 24 (81 nodes');
    expect(out).toContain('Puzzle 902: 2 5 8 11 — not solved');
    expect(out).toContain('Solved 2 of 3.');
    expect(out).toContain(`The first puzzle's search, to open in a browser: ${page}`);
    expect(out).not.toContain('graph TD');
    const html = readFileSync(page, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain("default-src 'none'");
    expect(html).toContain('Game of 24: 4 5 6 10');
  }, 60_000);

  it('prints the tree as Mermaid with --mermaid', () => {
    const page = join(mkdtempSync(join(tmpdir(), 'tot-demo-')), 'game24-run.html');
    const out = run('examples/game24/main.ts', ['--puzzles', '1', '--out', page, '--mermaid']);
    expect(out).toContain('graph TD');
  }, 60_000);
});

describe('examples/thought-tree-mermaid', () => {
  it('grows the tree, finds 4 * 6 = 24 and prints it as Mermaid with the best path', () => {
    const out = run('examples/thought-tree-mermaid/main.ts');
    expect(out.split('\n')[0]).toBe('graph TD');
    expect(out).toContain('node_3_1["4 * 6 = 24<br/>score 10"]');
    expect(out).toContain('class node_3_1 terminal');
    expect(out).toContain('class root,node_1_1,node_2_1,node_3_1 highlight');
    expect(out).toMatch(/Best path:\n.*\n\s+13 - 9 = 4 {2}\(score 8\)\n\s+10 - 4 = 6 {2}\(score 10\)\n\s+4 \* 6 = 24 {2}\(score 10\)/);
    expect(out).toContain('11 nodes, 15 model calls (5 generate, 10 evaluate)');
  }, 60_000);
});
