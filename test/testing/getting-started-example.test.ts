// The unit-test example of docs/getting-started.md ("Test without a provider") runs as written and
// finds the answer: run whole, as a reader would paste it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function firstBlockOf(section: string): string {
  const doc = readFileSync(join(root, 'docs/getting-started.md'), 'utf8');
  const start = doc.indexOf(`## ${section}`);
  const open = doc.indexOf('```ts\n', start);
  return doc.slice(open + '```ts\n'.length, doc.indexOf('```', open + 6));
}

it('runs the getting-started unit-test example to the Game of 24 answer', () => {
  // Inside the repository, so that '@tot/core' resolves through its tsconfig paths.
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, '.tmp', 'getting-started-'));
  try {
    const file = join(dir, 'example.ts');
    writeFileSync(file, `${firstBlockOf('5. Test without a provider')}\nexport {};\n`);
    const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8' });
    expect(out.split('\n')[0]).toBe('solution_found 4 * 6 = 24 (left: 24)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
