import { describe, expect, it } from 'vitest';
import { runBundled } from '../helpers/bundle-fixture.js';

// The example bundled with the sources, run by plain node: its output, without tsx compiling it first.
describe('examples/chain-of-thought', () => {
  it('prints each thought and the evolving plan, and reaches the conclusion', async () => {
    const out = await runBundled('examples/chain-of-thought/main.ts');
    expect(out).toContain('Thought 1:');
    expect(out).toContain('  - [Pending] Compute the travel time\n    - [Pending] 210 / 84 in hours');
    expect(out).toContain('Adding: 09:40 + 2 h 30 min = 12:10, plus 12 min = 12:22.');
    expect(out).toContain('Solution: The train is ready to leave again at 12:22. — 4 thoughts');
  }, 60_000);
});
