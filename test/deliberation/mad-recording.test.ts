import { describe, expect, it } from 'vitest';
import { parseMadRecording, recordedPrompts } from '../../examples/deliberation/mad-recording.js';
import { replayDebate, replayDebates } from '../../examples/deliberation/mad-replay.js';

type Msg = { role: 'system' | 'user' | 'assistant'; content: string };
const ORD = ['first', 'second', 'third', 'fourth'];

/**
 * A debate in the MAD repository's recording format, with prompts worded unlike the library's
 * defaults and unlike the recorded debates: the replay must recover whatever prompts a recording
 * was made with.
 */
function synthetic(o: { topic: string; rounds: { aff: string; neg: string; verdict: string }[]; judge?: string; final: string }): string {
  const aff: Msg[] = [{ role: 'system', content: `Debate on: ${o.topic}. Be precise.` }];
  const neg: Msg[] = [{ role: 'system', content: `Debate on: ${o.topic}. Be precise.` }];
  const mod: Msg[] = [{ role: 'system', content: `Moderate: ${o.topic}` }];
  o.rounds.forEach((r, i) => {
    if (i === 0) aff.push({ role: 'user', content: `Answer this: ${o.topic}` }, { role: 'assistant', content: 'draft' }, { role: 'user', content: 'Now argue for it.' }, { role: 'assistant', content: r.aff });
    else aff.push({ role: 'user', content: `${o.rounds[i - 1]!.neg}\n\nYour reply?` }, { role: 'assistant', content: r.aff });
    neg.push({ role: 'user', content: i === 0 ? `${r.aff}\n\nArgue against that.` : `${r.aff}\n\nYour reply?` }, { role: 'assistant', content: r.neg });
    mod.push({ role: 'user', content: `Round ${ORD[i]} is over.\nPRO: ${r.aff}\nCON: ${r.neg}\nVerdict as a dict.` }, { role: 'assistant', content: r.verdict });
  });
  const players: Record<string, Msg[]> = { 'Affirmative side': aff, 'Negative side': neg, Moderator: mod };
  if (o.judge) {
    const [first] = o.rounds;
    players.Judge = [mod[0]!, { role: 'user', content: `PRO: ${first!.aff}\nCON: ${first!.neg}\nList the candidates.` }, { role: 'assistant', content: 'PRO: a\nCON: b' }, { role: 'user', content: `Decide: ${o.topic}` }, { role: 'assistant', content: o.judge }];
  }
  return JSON.stringify({ source: o.topic, 'debate translation': o.final, players });
}

const no = "{'Whether there is a preference': 'No', 'Supported Side': '', 'Reason': 'close', 'Correct Translation': ''}";
const yes = (answer: string) => `{'Whether there is a preference': 'Yes', 'Supported Side': 'Negative', 'Reason': 'it\\'s \\d clearer', 'Correct Translation': '${answer}'}`;

describe('the MAD replay harness on recordings it has not seen', () => {
  it('replays a debate the moderator stopped in round 1, reading a verdict with broken escapes', async () => {
    const r = parseMadRecording(synthetic({ topic: '一石二鸟', rounds: [{ aff: 'One stone, two birds.', neg: 'Kill two birds with one stone.', verdict: yes('Kill two birds with one stone.') }], final: 'Kill two birds with one stone.' }), 'stop1.json');
    const replay = await replayDebate(r, { rounds: 3 });
    expect(replay).toMatchObject({ stopRound: 1, stopRoundMatches: true, finalMatches: true, misses: [] });
  });

  it('replays a debate with an empty argument, judged after the last round', async () => {
    const rounds = [
      { aff: 'A1', neg: 'N1', verdict: no },
      { aff: 'A2', neg: '', verdict: no },
      { aff: 'A3', neg: 'N3', verdict: no },
    ];
    const r = parseMadRecording(synthetic({ topic: '画蛇添足', rounds, judge: '{"Reason": "r", "Correct Translation": "Gild the lily."}', final: 'Gild the lily.' }), 'empty.json');
    expect(r.judged).toBe(true);
    expect(await replayDebate(r, { rounds: 3 })).toMatchObject({ stopRound: 3, stopRoundMatches: true, finalMatches: true, misses: [] });
  });

  it('replays a debate whose negative quotes the whole affirmative argument, and whose answers quote the topic', async () => {
    const topic = '对牛弹琴';
    const rounds = [
      { aff: `"${topic}" means playing the lute to a cow.`, neg: `You said: "${topic}" means playing the lute to a cow. I say: casting pearls before swine.`, verdict: no },
      { aff: 'Literal is better.', neg: 'You said: Literal is better. I disagree.', verdict: yes('Casting pearls before swine.') },
    ];
    const r = parseMadRecording(synthetic({ topic, rounds, final: 'Casting pearls before swine.' }), 'quotes.json');
    expect(await replayDebate(r, { rounds: 4 })).toMatchObject({ stopRound: 2, stopRoundMatches: true, finalMatches: true, misses: [] });
  });

  describe('one round limit for the whole replay, never the recording\'s own', () => {
    const four = [
      { aff: 'A1', neg: 'N1', verdict: no },
      { aff: 'A2', neg: 'N2', verdict: no },
      { aff: 'A3', neg: 'N3', verdict: no },
      { aff: 'A4', neg: 'N4', verdict: no },
    ];
    const judged = (rounds: typeof four) => parseMadRecording(synthetic({ topic: '守株待兔', rounds, judge: '{"Reason": "r", "Correct Translation": "Wait for a windfall."}', final: 'Wait for a windfall.' }), `${rounds.length}-rounds.json`);

    it('matches a debate judged after round 4 under the default limit (4)', async () => {
      expect(await replayDebate(judged(four))).toMatchObject({ stopRound: 4, recordedStopRound: 4, stopRoundMatches: true, finalMatches: true, misses: [] });
      const { summary } = await replayDebates([judged(four)]);
      expect(summary).toMatchObject({ debates: 1, stopRoundMatches: 1, judgeDecisions: 1, replayMisses: 0 });
    });

    it('reports a debate truncated to 3 rounds, with no moderator stop, as a stop-round mismatch', async () => {
      // The same debate cut after round 3 (the judge's turns quote round 1 only, so they stay):
      // judged after round 3 while the replay's limit is 4.
      const truncated = judged(four.slice(0, 3));
      expect(truncated).toMatchObject({ moderatorRounds: 3, judged: true });
      const replay = await replayDebate(truncated);
      expect(replay.stopRoundMatches).toBe(false);
      expect(replay.stopRound).not.toBe(3);
      // Round 4 has no recorded replies: the replay misses them rather than stopping where the recording did.
      expect(replay.misses.length).toBeGreaterThan(0);
      const { summary } = await replayDebates([judged(four), truncated]);
      expect(summary).toMatchObject({ debates: 2, stopRoundMatches: 1 });
      // Under a limit of 3 for the whole replay, it is the 4-round debate that does not match.
      const three = await replayDebates([judged(four), truncated], { rounds: 3 });
      expect(three.replays.map((x) => x.stopRoundMatches)).toEqual([false, true]);
    });
  });

  it('fails a recording whose conversations do not fit its rounds, naming it', () => {
    const text = synthetic({ topic: 't', rounds: [{ aff: 'A', neg: 'N', verdict: no }], final: 'x' });
    const broken = JSON.parse(text) as { players: Record<string, Msg[]> };
    broken.players['Negative side']![1]!.content = 'something else entirely';
    expect(() => recordedPrompts(parseMadRecording(JSON.stringify(broken), 'bad.json'))).toThrow(/bad.json: the negative's first turn does not quote/);
  });
});
