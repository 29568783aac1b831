import { describe, expect, it } from 'vitest';
import { runBundled } from '../helpers/bundle-fixture.js';

// The example bundled with the sources, run by plain node: its output, without tsx compiling it first.
describe('examples/agent-session', () => {
  it('races three approaches, heals a failed execution, and completes the session', async () => {
    const out = await runBundled('examples/agent-session/main.ts');
    expect(out).toContain('Winner: br1 ast_refactor; text_replace, codemod stopped (race_lost)');
    expect(out).toMatch(/Evidence: failure test_failed \(signature [0-9a-f]{16}\); healing: analyze_diff/);
    expect(out).toContain('Revision br3: validated');
    expect(out).toContain('Session completed.');
    expect(out).toContain('Evidence chain: plan execution → validate pass → execution exported → evidence success → complete done');
    expect(out).toContain('Goal: Replace every loadConfig() call with a cached getConfig() in [path] (owner: [email])');
    expect(out).toContain('style br0_head stroke-dasharray: 5 5');
  }, 60_000);
});
