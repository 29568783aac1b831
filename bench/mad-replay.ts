/**
 * Multi-Agent Debate replay (issue #14): every recorded debate of a folder (the MAD paper
 * repository's format: one JSON file per debate) runs through `madDebate` with the prompts it was
 * recorded with and a model that serves each player's recorded replies only when the request is
 * that player's recorded conversation so far. Every debate runs under the same round limit
 * (`--rounds`, default 4: the MAD paper's runs, "moderator stop or judge after round 4"), never
 * one taken from its recording. Expected: each debate stops in the recorded round (the moderator's
 * stop, or the judge after round `--rounds`) with the recorded final answer; a debate recorded with
 * fewer rounds and not stopped by its moderator is a stop-round mismatch.
 *
 * npm run bench:mad -- [--dir <folder>] [--rounds N]
 *
 * Prints { debates, stopRoundMatches, finalMatches, moderatorStops, judgeDecisions, replayMisses,
 * wallMs } with the harness's date and machine, and writes it to bench/results/mad-replay.json;
 * what differs, debate by debate, goes to stderr.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseMadRecording, type MadRecording } from '../examples/deliberation/mad-recording.js';
import { DEFAULT_REPLAY_ROUNDS, replayDebates } from '../examples/deliberation/mad-replay.js';
import { benchDir, report } from './harness.js';

const { values } = parseArgs({ options: { dir: { type: 'string' }, rounds: { type: 'string' } } });
const dir = values.dir ?? `${benchDir}/../../shared/data/mad-reference/debates`;
const rounds = values.rounds === undefined ? DEFAULT_REPLAY_ROUNDS : Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`[mad] --rounds must be a whole number, at least 1 (got ${JSON.stringify(values.rounds)})`);
  process.exit(1);
}
if (!existsSync(dir)) {
  console.error(`[mad] no folder ${dir}${values.dir ? '' : ' (the recorded debates are not beside this checkout): replay skipped'}`);
  process.exit(values.dir ? 1 : 0);
}
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
const recordings: MadRecording[] = [];
let unreadable = 0;
for (const f of files) {
  try {
    recordings.push(parseMadRecording(readFileSync(`${dir}/${f}`, 'utf8'), f));
  } catch (error) {
    unreadable += 1;
    console.error(`[mad] ${f}: not a recorded debate: ${(error as Error).message}`);
  }
}
const { summary, replays } = await replayDebates(recordings, { rounds });
for (const r of replays) {
  if (r.stopRoundMatches && r.finalMatches && r.misses.length === 0) continue;
  console.error(
    `[mad] ${r.name}: stopped in round ${r.stopRound} (${r.result.stopReason}), recorded ${r.recordedStopRound}; answer ${JSON.stringify(r.result.finalReport?.content ?? null)}${r.finalMatches ? '' : ' differs from the recording'}; ${r.misses.length} replay misses${r.misses.length ? ` (first: ${r.misses[0]!.closest}, message ${r.misses[0]!.at})` : ''}`,
  );
}
// A file that is not a debate counts as a debate that did not replay.
const result = { ...summary, debates: summary.debates + unreadable };
// Through the harness like every benchmark, so that the result carries its date and machine.
report('mad-replay', result);
// A debate that did not replay as recorded fails the command.
if (result.stopRoundMatches !== result.debates || result.finalMatches !== result.debates || result.replayMisses > 0) process.exitCode = 1;
