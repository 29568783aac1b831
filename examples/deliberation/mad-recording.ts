/**
 * Reads a recorded Multi-Agent Debate (the MAD paper repository's translation debates: one JSON
 * file per debate, with the source, the final "debate translation", and every player's
 * conversation) and derives the prompts it was run with, as `madDebate` templates. Nothing here
 * knows the recordings' wording: prompts are recovered by putting placeholders where the
 * conversations quote the topic and the other players' arguments, so any debate recorded in this
 * format replays.
 */
import type { ChatMessage, MadPrompts } from '@tot/core';

export interface MadRecording {
  /** The file's name, for reports. */
  name: string;
  /** The debate's topic (the source text). */
  topic: string;
  /** What the debate concluded. */
  finalAnswer: string;
  /** Each player's conversation: 'Affirmative side', 'Negative side', 'Moderator', 'Judge' (optional). */
  players: Record<string, ChatMessage[]>;
  /** Rounds the moderator judged. */
  moderatorRounds: number;
  /** Whether a judge decided (after the last round) rather than the moderator. */
  judged: boolean;
}

function conversationOf(v: unknown, who: string, name: string): ChatMessage[] {
  if (!Array.isArray(v) || v.some((m) => typeof m?.content !== 'string' || !['system', 'user', 'assistant'].includes(m?.role))) {
    throw new Error(`${name}: players["${who}"] is not a list of { role, content } messages`);
  }
  return v.map((m: ChatMessage) => ({ role: m.role, content: m.content }));
}

/** Parses one recorded debate; throws naming what is missing. */
export function parseMadRecording(text: string, name: string): MadRecording {
  const d = JSON.parse(text) as Record<string, unknown>;
  const players = d.players as Record<string, unknown> | undefined;
  if (typeof d.source !== 'string' || typeof d['debate translation'] !== 'string' || typeof players !== 'object' || players === null) {
    throw new Error(`${name}: expected "source", "debate translation" and "players"`);
  }
  const out: Record<string, ChatMessage[]> = {};
  for (const who of ['Affirmative side', 'Negative side', 'Moderator']) out[who] = conversationOf(players[who], who, name);
  if (players.Judge !== undefined) out.Judge = conversationOf(players.Judge, 'Judge', name);
  const moderatorRounds = out.Moderator!.filter((m) => m.role === 'assistant').length;
  return { name, topic: d.source, finalAnswer: d['debate translation'], players: out, moderatorRounds, judged: out.Judge !== undefined && out.Judge.length > 1 };
}

const replaceAll = (text: string, find: string, by: string) => (find === '' ? text : text.split(find).join(by));

/** Ordinal-free template: the moderator's turn of round 1 with the word that names the round made a placeholder. */
function roundWord(first: string, second: string | undefined): string {
  if (second === undefined) return replaceAll(first, 'first', '{{round}}');
  let start = 0;
  while (start < first.length && first[start] === second[start]) start++;
  let end = 0;
  while (end < first.length - start && first[first.length - 1 - end] === second[second.length - 1 - end]) end++;
  // Widen to whole words: "first"/"second" share no letters at the edges, but "fourth"/"fifth" do.
  while (start > 0 && /\w/.test(first[start - 1]!)) start--;
  while (end > 0 && /\w/.test(first[first.length - end]!)) end--;
  return `${first.slice(0, start)}{{round}}${first.slice(first.length - end)}`;
}

/**
 * The prompts the debate was run with. The affirmative's round-1 argument is its reply that the
 * negative's first turn quotes; the user turns before it are its opening. Templates put
 * `{{affirmative}}`, `{{negative}}`, `{{opponent}}` where the recorded turns quote the arguments,
 * `{{round}}` where the moderator's turns differ from round to round, and `{{topic}}` where they
 * quote the source.
 */
export function recordedPrompts(r: MadRecording): Partial<MadPrompts> {
  const aff = r.players['Affirmative side']!;
  const neg = r.players['Negative side']!;
  const mod = r.players.Moderator!;
  const judge = r.players.Judge;
  const negFirst = neg[1]?.content ?? '';
  // The affirmative's round-1 argument: the longest of its replies that the negative's first turn quotes.
  let k = -1;
  for (let i = 2; i < aff.length; i += 2) if (aff[i]!.role === 'assistant' && negFirst.includes(aff[i]!.content) && (k === -1 || aff[i]!.content.length >= aff[k]!.content.length)) k = i;
  if (k === -1) throw new Error(`${r.name}: the negative's first turn quotes none of the affirmative's replies`);
  const affRound = (n: number) => aff[k + 2 * (n - 1)]?.content ?? '';
  const negRound = (n: number) => neg[2 * n]?.content ?? '';
  const topic = (t: string) => replaceAll(t, r.topic, '{{topic}}');
  const moderatorTurn = (n: number) => replaceAll(replaceAll(mod[2 * n - 1]?.content ?? '', affRound(n), '{{affirmative}}'), negRound(n), '{{negative}}');
  const prompts: Partial<MadPrompts> = {
    debaterSystem: topic(aff[0]!.content),
    affirmativeOpening: aff.slice(1, k).filter((m) => m.role === 'user').map((m) => topic(m.content)),
    negativeOpening: topic(replaceAll(negFirst, affRound(1), '{{affirmative}}')),
    moderatorSystem: topic(mod[0]!.content),
    moderatorTurn: topic(roundWord(moderatorTurn(1), mod.length > 3 ? moderatorTurn(2) : undefined)),
  };
  const rebuttal = aff[k + 1];
  if (rebuttal) prompts.rebuttal = topic(replaceAll(rebuttal.content, negRound(1), '{{opponent}}'));
  if (judge && judge.length > 3) {
    prompts.judgeSystem = topic(judge[0]!.content);
    prompts.judgeCandidates = topic(replaceAll(replaceAll(judge[1]!.content, affRound(1), '{{affirmative}}'), negRound(1), '{{negative}}'));
    prompts.judgeDecision = topic(judge[3]!.content);
  }
  return prompts;
}
