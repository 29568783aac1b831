import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('README', () => {
  it('its example runs a search and prints the answer', () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const code = /## Example\n\n(?:<!--[^\n]*-->\n)?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code, 'README has an Example section with a ts block').toBeDefined();
    expect(code!.split('\n').length).toBeLessThanOrEqual(24);
    mkdirSync(`${root}.tmp`, { recursive: true });
    writeFileSync(`${root}.tmp/readme-example.ts`, code!);
    const out = execFileSync(process.execPath, ['--import', 'tsx', '.tmp/readme-example.ts'], { cwd: root, encoding: 'utf8' });
    expect(out.trim().split('\n')).toEqual(['solution_found', '13 - 9 = 4 (left: 4 4 10) → 10 - 4 = 6 (left: 4 6) → 4 * 6 = 24 (left: 24)']);
  }, 60_000);
});
