import { readFileSync } from 'node:fs';
import { parseGotRecording } from './recording.js';
import { replayRecording } from './replay.js';
for (const f of ['sorting_032', 'keyword_counting']) {
  const rec = parseGotRecording(readFileSync(`/work/shared/data/got-reference/example_prompts_${f}.md`, 'utf8'));
  console.log(f, [...rec.steps.values()].map((s) => `${s.label}:${s.responses.length}`).join(' '));
  const r = await replayRecording(rec);
  console.log(r.ok, r.finalMatches, r.unusedSteps, r.result.stopReason, r.result.errors.map((e) => `${e.code} ${e.message}`));
  for (const c of r.checks) console.log(c.ok ? 'ok ' : 'BAD', c.what, c.ok ? '' : `\n  expected ${c.expected}\n  got      ${c.got}`);
  console.log(r.result.stats);
}
