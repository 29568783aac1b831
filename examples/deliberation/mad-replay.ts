/**
 * Replays recorded Multi-Agent Debates through `madDebate`: a model that answers each request with
 * the recorded reply of the player whose conversation the request's messages are, message for
 * message, a prefix of — so a replay that assembles any player's memory differently misses — and
 * checks that the debate stops in the recorded round with the recorded final answer.
 */
import { madDebate, TotError, type ChatMessage, type DeliberationResult, type GenerateRequest, type GenerateResult, type LanguageModel } from '@tot/core';
import { recordedPrompts, type MadRecording } from './mad-recording.js';

export interface ReplayMiss {
  /** The player whose conversation came closest. */
  closest: string;
  /** The first message that differs (its index), or the length of the conversation when the request ran past it. */
  at: number;
}

const PLAYERS: Record<string, string> = { affirmative: 'Affirmative side', negative: 'Negative side', moderator: 'Moderator', judge: 'Judge' };

/** A model serving a debate's recorded replies by conversation prefix. */
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

/** Apostrophes and whitespace ignored: the recording stripped some of them. */
export const sameAnswer = (a: string, b: string) => {
  const norm = (s: string) => s.replace(/['’‘`\s]/g, '');
  return norm(a) === norm(b);
};

export interface DebateReplay {
  name: string;
  result: DeliberationResult;
  recordedStopRound: number;
  stopRound: number;
  stopRoundMatches: boolean;
  finalMatches: boolean;
  decidedBy: string | undefined;
  misses: ReplayMiss[];
}

/**
 * Replays one debate. `maxRounds` for a debate the moderator stopped is not in the recording: it
 * is the folder's (the rounds of its judged debates), given by the caller.
 */
export async function replayDebate(r: MadRecording, maxRounds: number): Promise<DebateReplay> {
  const model = recordedDebateModel(r);
  const debate = madDebate({ model, prompts: recordedPrompts(r), maxRounds: r.judged ? r.moderatorRounds : Math.max(maxRounds, r.moderatorRounds) });
  const result = await debate.run(r.topic);
  const stopRound = result.rounds.length;
  return {
    name: r.name,
    result,
    recordedStopRound: r.moderatorRounds,
    stopRound,
    stopRoundMatches: stopRound === r.moderatorRounds && (r.judged ? result.stopReason === 'max_rounds_reached' : result.stopReason === 'converged'),
    finalMatches: result.finalReport !== undefined && sameAnswer(result.finalReport.content, r.finalAnswer),
    decidedBy: result.finalReport?.metadata.decided_by as string | undefined,
    misses: model.misses,
  };
}

export interface MadReplaySummary {
  debates: number;
  stopRoundMatches: number;
  finalMatches: number;
  moderatorStops: number;
  judgeDecisions: number;
  replayMisses: number;
  wallMs: number;
}

/** Replays every debate; the rounds of debates the moderator stopped are capped as the judged ones were (else 4, the paper's runs). */
export async function replayDebates(recordings: readonly MadRecording[]): Promise<{ summary: MadReplaySummary; replays: DebateReplay[] }> {
  const started = performance.now();
  const judgedRounds = recordings.filter((r) => r.judged).map((r) => r.moderatorRounds);
  const maxRounds = judgedRounds.length > 0 ? Math.max(...judgedRounds) : 4;
  const replays: DebateReplay[] = [];
  for (const r of recordings) replays.push(await replayDebate(r, maxRounds));
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
