import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseMadRecording, recordedPrompts, type MadRecording } from '../../examples/deliberation/mad-recording.js';
import { recordedDebateModel, replayDebate, replayDebates } from '../../examples/deliberation/mad-replay.js';
import { madDebate } from '../../src/deliberation/index.js';

// The recorded debates are GPL-3.0: read here at test time, never copied into the repository.
const dir = fileURLToPath(new URL('../../../shared/data/mad-reference/debates', import.meta.url));
const present = existsSync(dir);
if (!present) console.warn(`[mad] ${dir} not found: the MAD replay tests are skipped`);

const load = (): MadRecording[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .map((f) => parseMadRecording(readFileSync(`${dir}/${f}`, 'utf8'), f));

/** A deep copy of a recording, to break. */
const copy = (r: MadRecording): MadRecording => JSON.parse(JSON.stringify(r)) as MadRecording;

describe.skipIf(!present)('madDebate replays the recorded Multi-Agent Debates', () => {
  it('stops every debate in the recorded round with the recorded answer, each request the player\'s recorded conversation', async () => {
    const recordings = load();
    const { summary, replays } = await replayDebates(recordings);
    expect(summary.replayMisses).toBe(0);
    expect(summary.debates).toBe(recordings.length);
    expect(summary.stopRoundMatches).toBe(recordings.length);
    expect(summary.finalMatches).toBe(recordings.length);
    expect(summary.moderatorStops + summary.judgeDecisions).toBe(recordings.length);
    expect(summary.moderatorStops).toBe(recordings.filter((r) => !r.judged).length);
    // Every recorded reply was asked for: nothing of any conversation went unused.
    for (const r of replays) expect(r.result.stats.llmCalls, r.name).toBe(Object.values(recordings.find((x) => x.name === r.name)!.players).flat().filter((m) => m.role === 'assistant').length);
  });

  it('notices a moderator that preferred a side earlier than recorded: the debate stops there, not in the recorded round', async () => {
    const r = copy(load().find((x) => x.judged)!);
    const mod = r.players.Moderator!;
    mod[4] = { role: 'assistant', content: "{'Whether there is a preference': 'Yes', 'Supported Side': 'Negative', 'Reason': 'it\\'s clearer', 'Correct Translation': 'Something else.'}" };
    const replay = await replayDebate(r, { rounds: 4 });
    expect(replay.stopRound).toBe(2);
    expect(replay.stopRoundMatches).toBe(false);
    expect(replay.finalMatches).toBe(false);
    expect(replay.result.finalReport?.content).toBe('Something else.');
  });

  it('notices a final answer that is not the recorded one', async () => {
    const r = copy(load()[0]!);
    r.finalAnswer = 'A different translation.';
    expect((await replayDebate(r, { rounds: 4 })).finalMatches).toBe(false);
  });

  it('misses when a player\'s memory is assembled differently: the request is no recorded conversation', async () => {
    const r = load()[0]!;
    const model = recordedDebateModel(r);
    const prompts = recordedPrompts(r);
    // The rebuttal without the opponent's argument: the affirmative's round-2 turn (after the system message and its opening exchanges) is no recorded turn.
    const result = await madDebate({ model, prompts: { ...prompts, rebuttal: 'Do you agree?' }, maxRounds: r.moderatorRounds }).run(r.topic);
    expect(model.misses.length).toBeGreaterThan(0);
    expect(model.misses[0]).toMatchObject({ closest: 'Affirmative side', at: 1 + prompts.affirmativeOpening!.length * 2 });
    expect(result.errors.some((e) => e.code === 'GENERATION_FAILED')).toBe(true);
  });
});
