import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleFixture } from '../helpers/bundle-fixture.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('examples/deliberation', () => {
  it("posts the seed's IELTS request to the SSE server and prints each event until [DONE], then the report", async () => {
    // Bundled with its sources under plain node: tsx would compile them on every start.
    const out = execFileSync(process.execPath, [await bundleFixture('examples/deliberation/main.ts')], { cwd: root, encoding: 'utf8' });
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

  it('keeps a server up for the README\'s curl line: the npm script serves POST /deliberate until it is stopped', async () => {
    const scripts = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
    const readme = readFileSync(`${root}examples/deliberation/README.md`, 'utf8');
    // The README's commands: the script it names exists, and its curl line posts to the script's default port.
    expect(readme).toContain('npm run example:deliberation-server');
    expect(readme).toMatch(/curl -N -X POST localhost:8787\/deliberate -d '\{"message": "Help me plan three months of IELTS preparation", "mode": "multi_agent"\}'/);
    expect(scripts['example:deliberation-server']).toBe('tsx examples/deliberation/serve.ts');
    const source = readFileSync(`${root}examples/deliberation/serve.ts`, 'utf8');
    expect(source).toMatch(/\? 8787 :/);
    // Run on a free port (PORT=0), as the script runs it otherwise.
    const child = spawn(process.execPath, [await bundleFixture('examples/deliberation/serve.ts')], { cwd: root, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          const found = /on (http:\/\/\S+) /.exec(out);
          if (found) resolve(found[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve.ts exited (${code}) before listening: ${out}`)));
      });
      // What curl -d sends: the JSON body, with curl's default form content type.
      const res = await fetch(`${url}/deliberate`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '{"message": "Help me plan three months of IELTS preparation", "mode": "multi_agent"}' });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const lines = (await res.text()).split('\n\n').filter(Boolean);
      expect(lines.at(-1)).toBe('data: [DONE]');
      expect(lines.map((l) => (l === 'data: [DONE]' ? l : (JSON.parse(l.slice('data: '.length)) as { type: string }).type))).toEqual([
        'agent_output',
        'agent_output',
        'host_decision',
        'agent_output',
        'agent_output',
        'host_decision',
        'final_report',
        'data: [DONE]',
      ]);
      // Still up for the next request; a stop signal ends it cleanly.
      expect((await fetch(`${url}/nowhere`)).status).toBe(404);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
