import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('README', () => {
  it('its example runs as written', () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const code = /## Example\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code, 'README has an Example section with a ts block').toBeDefined();
    expect(code!.split('\n').length).toBeLessThanOrEqual(26);
    mkdirSync(`${root}.tmp`, { recursive: true });
    writeFileSync(`${root}.tmp/readme-example.ts`, code!);
    const out = execFileSync(process.execPath, ['--import', 'tsx', '.tmp/readme-example.ts'], { cwd: root, encoding: 'utf8' });
    expect(out).toContain('node_1_1["13 - 9 = 4 (left: 4 4 10)<br/>score 8"]');
    expect(out.trim().split('\n').at(-1)).toBe('1');
  }, 60_000);
});
