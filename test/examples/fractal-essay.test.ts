import { describe, expect, it } from 'vitest';
import { runBundled } from '../helpers/bundle-fixture.js';

// The example bundled with the sources, run by plain node: its output, without tsx compiling it first.
describe('examples/fractal-essay', () => {
  it("plays the seed's essay: a plan, three paragraphs, a failed story redone, every result archived", async () => {
    const out = await runBundled('examples/fractal-essay/main.ts');
    expect(out).toContain('think f0: TODO — Three paragraphs:');
    expect(out).toContain('think f2: RETURN — FAILED: the story has 40 words');
    expect(out).toContain('eval  f0 (done: 2): CALL — Assisted creation paragraph: a moving story, at least 100 words (redo: the first was too short)');
    expect(out).toContain('eval  f0 (done: 4): RETURN — Essay complete');
    expect(out).toContain('f0 --> f4');
    expect(out).toContain('5 frames, 10 steps, 10 model calls');
  }, 60_000);
});
