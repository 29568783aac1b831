import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleFixture } from '../helpers/bundle-fixture.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = `${root}examples/custom-strategy/`;

describe('examples/custom-strategy', () => {
  it('is written against the published API only', () => {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const imports = [...readFileSync(dir + file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      for (const source of imports) expect(source === '@tot/core' || source.startsWith('./') || source.startsWith('../game24/') || source.startsWith('node:'), `${file} imports ${source}`).toBe(true);
    }
  });

  it('keeps every beam slot on a distinct position where plain beam search repeats some', async () => {
    // Bundled with its sources under plain node: tsx would compile them on every start.
    const out = execFileSync(process.execPath, [await bundleFixture('examples/custom-strategy/main.ts')], { cwd: root, encoding: 'utf8' });
    const repeated = [...out.matchAll(/(\d+) beam slots spent on a repeated position/g)].map((m) => Number(m[1]));
    expect(repeated).toHaveLength(2);
    expect(repeated[0]).toBeGreaterThan(0);
    expect(repeated[1]).toBe(0);
  }, 60_000);
});
