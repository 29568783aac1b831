import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run demo (examples/thought-tree-mermaid)', () => {
  it('grows the tree, finds 4 * 6 = 24 and prints it as Mermaid with the best path', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'examples/thought-tree-mermaid/main.ts'], { cwd: root, encoding: 'utf8' });
    expect(out.split('\n')[0]).toBe('graph TD');
    expect(out).toContain('node_3_1["4 * 6 = 24<br/>score 10"]');
    expect(out).toContain('class node_3_1 terminal');
    expect(out).toContain('class root,node_1_1,node_2_1,node_3_1 highlight');
    expect(out).toMatch(/Best path:\n.*\n\s+13 - 9 = 4 {2}\(score 8\)\n\s+10 - 4 = 6 {2}\(score 10\)\n\s+4 \* 6 = 24 {2}\(score 10\)/);
    expect(out).toContain('11 nodes, 15 model calls (5 generate, 10 evaluate)');
  }, 60_000);
});
