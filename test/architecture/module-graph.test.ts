import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const moduleOf = (path: string) => relative(src, path).split('/')[0]!.replace(/\.ts$/, '');

/** Module → the modules its files import (relative imports, types included). */
function graph(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of files(src)) {
    const from = moduleOf(file);
    const deps = edges.get(from) ?? new Set<string>();
    edges.set(from, deps);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from\s+'(\.[^']+)'/gm)) {
      const to = moduleOf(resolve(dirname(file), spec!));
      if (to !== from) deps.add(to);
    }
  }
  return edges;
}

function cycle(edges: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (m: string): string[] | undefined => {
    if (state.get(m) === 'done') return undefined;
    if (state.get(m) === 'open') return [...path.slice(path.indexOf(m)), m];
    state.set(m, 'open');
    path.push(m);
    for (const next of edges.get(m) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(m, 'done');
    return undefined;
  };
  for (const m of edges.keys()) {
    const found = visit(m);
    if (found) return found;
  }
  return undefined;
}

/** Every module a module reaches, itself excluded. */
function reach(edges: Map<string, Set<string>>, from: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(edges.get(from) ?? [])];
  while (stack.length > 0) {
    const m = stack.pop()!;
    if (seen.has(m)) continue;
    seen.add(m);
    stack.push(...(edges.get(m) ?? []));
  }
  return seen;
}

describe('the module graph (DESIGN §2)', () => {
  const edges = graph();

  it('has no cycle between modules', () => {
    expect(cycle(edges)).toBeUndefined();
  });

  it('keeps the foundations below everything: errors, model and budget know nothing of trees, runs or runners', () => {
    for (const base of ['errors', 'model', 'budget']) {
      expect([...reach(edges, base)].filter((m) => !['errors', 'model', 'budget', 'internal'].includes(m)), base).toEqual([]);
    }
  });

  it('puts the run kernel under the runners, never the reverse', () => {
    for (const runner of ['search', 'fractal', 'cot', 'solve', 'graph', 'got', 'deliberation']) expect(reach(edges, 'run'), runner).not.toContain(runner);
    expect(reach(edges, 'events')).not.toContain('run');
  });

  it('never lets a runner import another (solve is the seed-000 pipeline on search)', () => {
    const runners = ['search', 'fractal', 'cot', 'graph', 'deliberation'];
    for (const a of runners) for (const b of runners) if (a !== b) expect(edges.get(a), `${a} → ${b}`).not.toContain(b);
    for (const other of ['fractal', 'cot', 'graph', 'deliberation']) expect(edges.get('solve')).not.toContain(other);
    expect(edges.has('graph'), 'the graph runner is in the module graph').toBe(true);
    expect(edges.has('deliberation'), 'the deliberation runner is in the module graph').toBe(true);
  });

  it('keeps adapters on top: nothing imports sqlite, postgres, ai-sdk, openai, mcp, viewer or testing (but the tot command)', () => {
    const adapters = ['sqlite', 'postgres', 'ai-sdk', 'openai', 'mcp', 'viewer', 'testing'];
    for (const [from, deps] of edges) for (const adapter of adapters) if (from !== adapter && from !== 'cli') expect(deps, `${from} → ${adapter}`).not.toContain(adapter);
    for (const [from, deps] of edges) if (from !== 'cli') expect(deps, `${from} → cli`).not.toContain('cli');
  });

  it('keeps the provider adapters off the runners: they stand on the model port alone', () => {
    for (const adapter of ['ai-sdk', 'openai']) {
      expect([...reach(edges, adapter)].filter((m) => !['errors', 'model', 'budget', 'internal'].includes(m)), adapter).toEqual([]);
    }
  });

  it("keeps the run's mechanisms in run/: recording, resume, the call log and run budgets appear nowhere else", () => {
    const outside = files(src).filter((f) => moduleOf(f) !== 'run');
    const offenders = (pattern: RegExp) => outside.filter((f) => pattern.test(readFileSync(f, 'utf8').replace(/^\s*\*.*$/gm, ''))).map((f) => relative(src, f));
    expect(offenders(/new RunRecorder|run-recorder\.js/)).toEqual([]);
    expect(offenders(/type: 'llm\.(requested|completed|failed|retried)'/)).toEqual([]);
    expect(offenders(/budgetForRun|\.perRun\(\)\.create|budget\.start\(\)/)).toEqual(['solve/protocol-adapter.ts']);
    // Budget admission: the Budget's own accounting, the one admission function, and nothing else.
    expect(offenders(/\.reserve\(/)).toEqual(['model/with-budget.ts']);
    expect(offenders(/admitCall\(/)).toEqual(['model/with-budget.ts']);
    // Signals are linked in one place: the kernel, and the one helper it and the middleware share.
    expect(offenders(/addEventListener\('abort'/)).toEqual(['internal/abort.ts']);
  });
});
