/**
 * Replays recorded Multi-Agent Debates through `madDebate`: a model that answers each request with
 * the recorded reply of the player whose conversation the request's messages are, message for
 * message, a prefix of — so a replay that assembles any player's memory differently misses — and
 * checks that the debate stops in the recorded round with the recorded final answer.
 */
import { TotError, type ChatMessage, type GenerateRequest, type GenerateResult, type LanguageModel } from '@tot/core';
import { madDebate, type DeliberationResult } from '@tot/core/deliberation';
import { recordedPrompts, type MadRecording } from './mad-recording.js';

/**
 * A request the recorded model could not answer: no player's recorded conversation continues it.
 *
 * @example
 * ```ts
 * const line = (m: ReplayMiss) => `closest to ${m.closest}, differs at message ${m.at}`;
 * ```
 */
export interface ReplayMiss {
  /** The player whose conversation came closest. */
  closest: string;
  /** The first message that differs (its index), or the length of the conversation when the request ran past it. */
  at: number;
}

const PLAYERS: Record<string, string> = { affirmative: 'Affirmative side', negative: 'Negative side', moderator: 'Moderator', judge: 'Judge' };

/**
 * A model serving a debate's recorded replies by conversation prefix: a request is answered only
 * when its messages are, message for message, the start of the asking player's recorded
 * conversation; otherwise it fails and the miss is kept.
 *
 * @example
 * ```ts
 * const model = recordedDebateModel(recording);
 * await madDebate({ model, prompts: recordedPrompts(recording), maxRounds: 4 }).run(recording.topic);
 * console.log(model.served, model.misses);
 * ```
 */
export function recordedDebateModel(r: MadRecording): LanguageModel & { misses: ReplayMiss[]; served: number } {
  const misses: ReplayMiss[] = [];
  const model = {
    modelId: 'mad-recording',
    misses,
    served: 0,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const asked = request.messages;
      let best: ReplayMiss = { closest: '(none)', at: -1 };
      // The request must be the conversation of the player that asks (madDebate's participant ids).
      const who = PLAYERS[request.tags?.['deliberation.participant'] ?? ''];
      const candidates = who === undefined ? Object.entries(r.players) : Object.entries(r.players).filter(([name]) => name === who);
      for (const [who, recorded] of candidates) {
        let same = 0;
        while (same < asked.length && same < recorded.length && asked[same]!.role === recorded[same]!.role && asked[same]!.content === recorded[same]!.content) same++;
        const next = recorded[asked.length];
        if (same === asked.length && next?.role === 'assistant') {
          model.served += 1;
          return { outputs: [next.content], usage: {}, finishReason: 'stop' };
        }
        if (same > best.at) best = { closest: who, at: same };
      }
      misses.push(best);
      throw new TotError('GENERATION_FAILED', `No recorded conversation continues this request (closest: ${best.closest}, differs at message ${best.at}).`, { recoverable: false, details: { retryable: false } });
    },
  };
  return model;
}

/**
 * Whether two answers are the same, apostrophes and whitespace ignored: the recording stripped some of them.
 *
 * @example
 * ```ts
 * sameAnswer("It's late.", 'Its late.'); // true
 * ```
 */
export const sameAnswer = (a: string, b: string) => {
  const norm = (s: string) => s.replace(/['’‘`\s]/g, '');
  return norm(a) === norm(b);
};

/**
 * What the replay of one recorded debate gave, against what was recorded.
 *
 * @example
 * ```ts
 * const replay: DebateReplay = await replayDebate(recording, { rounds: 4 });
 * if (!replay.stopRoundMatches) console.log(`${replay.name}: stopped in round ${replay.stopRound}, recorded ${replay.recordedStopRound}`);
 * ```
 */
export interface DebateReplay {
  name: string;
  result: DeliberationResult;
  /** The rounds the moderator judged in the recording. */
  recordedStopRound: number;
  /** The rounds the replay played. */
  stopRound: number;
  /**
   * The replay stopped as the recording did: a debate the moderator stopped, in its recorded round
   * by the moderator; any other, by the judge after the replay's `rounds`, which must be its
   * recorded rounds too (a debate recorded with fewer rounds, not stopped by the moderator, was
   * not run with this cap).
   */
  stopRoundMatches: boolean;
  finalMatches: boolean;
  decidedBy: string | undefined;
  misses: ReplayMiss[];
}

/**
 * Options of {@link replayDebate} and {@link replayDebates}.
 *
 * @example
 * ```ts
 * const options: ReplayOptions = { rounds: 4 };
 * ```
 */
export interface ReplayOptions {
  /**
   * The debate's round limit, the same for every debate of a replay: after this round the judge
   * decides. Default 4, the rounds of the MAD paper's runs ("moderator stop or judge after round 4").
   * Never taken from a recording, or a recording would confirm its own stop round.
   */
  rounds?: number;
}

/** The MAD paper's runs: the judge decides after round 4 unless the moderator stopped earlier. */
export const DEFAULT_REPLAY_ROUNDS = 4;

/**
 * Replays one debate under the replay's fixed round limit (`rounds`, default 4).
 *
 * @example
 * ```ts
 * const replay = await replayDebate(parseMadRecording(text, '0.json'), { rounds: 4 });
 * console.log(replay.stopRoundMatches, replay.finalMatches, replay.misses.length);
 * ```
 */
export async function replayDebate(r: MadRecording, options: ReplayOptions = {}): Promise<DebateReplay> {
  const rounds = options.rounds ?? DEFAULT_REPLAY_ROUNDS;
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds must be a whole number of rounds, at least 1 (got ${rounds})`);
  const model = recordedDebateModel(r);
  const debate = madDebate({ model, prompts: recordedPrompts(r), maxRounds: rounds });
  const result = await debate.run(r.topic);
  const stopRound = result.rounds.length;
  const stoppedAsRecorded = r.judged
    ? // The judge decides after the last round: the recording must have played the replay's rounds.
      r.moderatorRounds === rounds && stopRound === rounds && result.stopReason === 'max_rounds_reached'
    : stopRound === r.moderatorRounds && result.stopReason === 'converged';
  return {
    name: r.name,
    result,
    recordedStopRound: r.moderatorRounds,
    stopRound,
    stopRoundMatches: stoppedAsRecorded,
    finalMatches: result.finalReport !== undefined && sameAnswer(result.finalReport.content, r.finalAnswer),
    decidedBy: result.finalReport?.metadata.decided_by as string | undefined,
    misses: model.misses,
  };
}

/**
 * What `npm run bench:mad` prints: counts over the replayed debates.
 *
 * @example
 * ```ts
 * const { summary } = await replayDebates(recordings);
 * const allReplayed = summary.stopRoundMatches === summary.debates && summary.replayMisses === 0;
 * ```
 */
export interface MadReplaySummary {
  debates: number;
  stopRoundMatches: number;
  finalMatches: number;
  moderatorStops: number;
  judgeDecisions: number;
  replayMisses: number;
  wallMs: number;
}

/**
 * Replays every debate under one round limit (`rounds`, default 4): each stops where its
 * moderator preferred a side, or is judged after that round.
 *
 * @example
 * ```ts
 * const { summary, replays } = await replayDebates(recordings, { rounds: 4 });
 * console.log(JSON.stringify(summary));
 * ```
 */
export async function replayDebates(recordings: readonly MadRecording[], options: ReplayOptions = {}): Promise<{ summary: MadReplaySummary; replays: DebateReplay[] }> {
  const started = performance.now();
  const replays: DebateReplay[] = [];
  for (const r of recordings) replays.push(await replayDebate(r, options));
  return {
    replays,
    summary: {
      debates: replays.length,
      stopRoundMatches: replays.filter((x) => x.stopRoundMatches).length,
      finalMatches: replays.filter((x) => x.finalMatches).length,
      moderatorStops: replays.filter((x) => x.decidedBy === 'moderator').length,
      judgeDecisions: replays.filter((x) => x.decidedBy === 'judge').length,
      replayMisses: replays.reduce((n, x) => n + x.misses.length, 0),
      wallMs: Math.round(performance.now() - started),
    },
  };
}

export type { ChatMessage };
