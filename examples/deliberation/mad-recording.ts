/**
 * Reads a recorded Multi-Agent Debate (the MAD paper repository's translation debates: one JSON
 * file per debate, with the source, the final "debate translation", and every player's
 * conversation) and derives the prompts it was run with, as `madDebate` templates. Nothing here
 * knows the recordings' wording: prompts are recovered by putting placeholders where the
 * conversations quote the topic and the other players' arguments, so any debate recorded in this
 * format replays.
 */
import type { ChatMessage } from '@tot/core';
import type { MadPrompts } from '@tot/core/deliberation';

/**
 * One recorded debate, read by {@link parseMadRecording}.
 *
 * @example
 * ```ts
 * const judgedAfter = (r: MadRecording) => (r.judged ? r.moderatorRounds : undefined);
 * ```
 */
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

/**
 * Parses one recorded debate; throws naming what is missing.
 *
 * @example
 * ```ts
 * const recording = parseMadRecording(readFileSync('debates/0.json', 'utf8'), '0.json');
 * ```
 */
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

/**
 * `text` with each of `parts` (in order, each found after the previous one) replaced by its
 * placeholder; undefined when one is empty or not there. Found by position rather than replaced
 * everywhere: an argument may quote the one before it.
 */
function cut(text: string, parts: readonly [value: string, placeholder: string][], lenient = false): string | undefined {
  let out = '';
  let from = 0;
  for (const [value, placeholder] of parts) {
    if (value === '') {
      // An empty argument cannot be found; where its placeholder goes changes nothing in this
      // recording's text, so a template that is only used for it may put it anywhere.
      if (!lenient) return undefined;
      out += placeholder;
      continue;
    }
    const at = text.indexOf(value, from);
    if (at === -1) return undefined;
    out += text.slice(from, at) + placeholder;
    from = at + value.length;
  }
  return out + text.slice(from);
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

/** The round's word made a placeholder: where two rounds' turns differ, or the ordinal when only one round is usable. */
function roundWord(first: { n: number; text: string }, second: { n: number; text: string } | undefined): string {
  if (second === undefined) return replaceAll(first.text, ORDINALS[first.n - 1] ?? `round ${first.n}`, '{{round}}');
  const [a, b] = [first.text, second.text];
  let start = 0;
  while (start < a.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  // Widen to whole words: "first"/"second" share no letters at the edges, but "fourth"/"fifth" do.
  while (start > 0 && /\w/.test(a[start - 1]!)) start--;
  while (end > 0 && /\w/.test(a[a.length - end]!)) end--;
  return `${a.slice(0, start)}{{round}}${a.slice(a.length - end)}`;
}

/**
 * The prompts the debate was run with. The affirmative's round-1 argument is its reply that the
 * negative's first turn quotes; the user turns before it are its opening. Templates put
 * `{{affirmative}}`, `{{negative}}`, `{{opponent}}` where the recorded turns quote the arguments
 * (each from a round whose arguments are not empty), `{{round}}` where the moderator's turns differ
 * from round to round, and `{{topic}}` where they quote the source.
 *
 * @example
 * ```ts
 * const debate = madDebate({ model, prompts: recordedPrompts(recording), maxRounds: 4 });
 * ```
 */
export function recordedPrompts(r: MadRecording): Partial<MadPrompts> {
  const aff = r.players['Affirmative side']!;
  const neg = r.players['Negative side']!;
  const mod = r.players.Moderator!;
  const judge = r.players.Judge;
  const negFirst = neg[1]?.content ?? '';
  // The affirmative's round-1 argument is its reply to the last opening turn: it replies once per
  // opening turn and once in each later round the moderator judged, so the structure says which.
  const replies = aff.filter((m) => m.role === 'assistant').length;
  const opening = replies - (r.moderatorRounds - 1);
  const k = 2 * opening;
  if (opening < 1 || aff[k]?.role !== 'assistant') throw new Error(`${r.name}: the affirmative's conversation does not have the rounds the moderator judged`);
  if (aff[k]!.content !== '' && !negFirst.includes(aff[k]!.content)) throw new Error(`${r.name}: the negative's first turn does not quote the affirmative's round-1 argument`);
  const affRound = (n: number) => aff[k + 2 * (n - 1)]?.content ?? '';
  const negRound = (n: number) => neg[2 * n]?.content ?? '';
  const topic = (t: string) => replaceAll(t, r.topic, '{{topic}}');
  const rounds = Array.from({ length: r.moderatorRounds }, (_, i) => i + 1);
  const moderatorTurn = (n: number, lenient: boolean) =>
    cut(
      mod[2 * n - 1]?.content ?? '',
      [
        [affRound(n), '{{affirmative}}'],
        [negRound(n), '{{negative}}'],
      ],
      lenient,
    );
  // Rounds whose arguments are all there give the template; with none, any round replays itself.
  let turns = rounds.flatMap((n) => {
    const text = moderatorTurn(n, false);
    return text === undefined ? [] : [{ n, text }];
  });
  if (turns.length === 0) turns = rounds.flatMap((n) => (moderatorTurn(n, true) === undefined ? [] : [{ n, text: moderatorTurn(n, true)! }])).slice(0, 1);
  if (turns.length === 0) throw new Error(`${r.name}: no moderator turn quotes both sides' arguments`);
  const negativeOpening = cut(negFirst, [[affRound(1), '{{affirmative}}']], true);
  if (negativeOpening === undefined) throw new Error(`${r.name}: the negative's first turn does not quote the affirmative's argument`);
  const prompts: Partial<MadPrompts> = {
    debaterSystem: topic(aff[0]!.content),
    affirmativeOpening: aff.slice(1, k).filter((m) => m.role === 'user').map((m) => topic(m.content)),
    negativeOpening: topic(negativeOpening),
    moderatorSystem: topic(mod[0]!.content),
    moderatorTurn: topic(roundWord(turns[0]!, turns[1])),
  };
  // The affirmative's turn of round n + 1 quotes the negative's argument of round n.
  for (const n of rounds) {
    const turn = aff[k + 2 * n - 1];
    const rebuttal = turn && cut(turn.content, [[negRound(n), '{{opponent}}']]);
    if (rebuttal !== undefined && rebuttal !== '') {
      prompts.rebuttal = topic(rebuttal);
      break;
    }
  }
  if (judge && judge.length > 3) {
    prompts.judgeSystem = topic(judge[0]!.content);
    const candidates = cut(
      judge[1]!.content,
      [
        [affRound(1), '{{affirmative}}'],
        [negRound(1), '{{negative}}'],
      ],
      true,
    );
    if (candidates === undefined) throw new Error(`${r.name}: the judge's first turn does not quote the round-1 arguments`);
    prompts.judgeCandidates = topic(candidates);
    prompts.judgeDecision = topic(judge[3]!.content);
  }
  return prompts;
}
