import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('examples/deliberation', () => {
  it("posts the seed's IELTS request to the SSE server and prints each event until [DONE], then the report", () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'examples/deliberation/main.ts'], { cwd: root, encoding: 'utf8' });
    const events = out.split('\n').filter((line) => /^(planner|critic|host|reporter) /.test(line) || line === '[DONE]');
    expect(events.map((line) => (line === '[DONE]' ? line : /^(\w+)\s+(round \d+|report)/.exec(line)!.slice(1).join(' ')))).toEqual([
      'planner round 1',
      'critic round 1',
      'host round 1',
      'planner round 2',
      'critic round 2',
      'host round 2',
      'reporter report',
      '[DONE]',
    ]);
    expect(out).toContain('host     round 1  continue: 0.3 < lexical similarity 0.39 <= 0.6: continuing');
    expect(out).toContain('host     round 2  converge: lexical similarity 0.79 > 0.6: converging');
    expect(out).toContain('reporter report   IELTS: a 12-week preparation plan');
    // Deadlines come from the get_now tool under the example's fixed clock (2026-01-05).
    expect(out).toContain('- Weekly full mock exam under exam conditions (12 h, by 2026-03-29)');
  }, 60_000);
});
