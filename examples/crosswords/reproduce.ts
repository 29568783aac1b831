/**
 * Replays a recorded run of the paper's crossword search through Explorer and the paper's `dfs`
 * settings (proposals from the recording, each step's clue counts from the recorded step with the
 * same answers), and compares every step the search takes with the recorded one.
 */
import { Explorer, ThoughtTree } from '@tot/core';
import { CrosswordBoard, type Crossword } from './board.js';
import { recordedProposals, recordedVerdicts, type RecordedStep } from './replay.js';
import { crosswordEvaluator, crosswordGenerator, PAPER_LIMITS, paperSearch, type PaperSearchOptions } from './roles.js';

/** One step as the search took it, in the recording's terms. */
export interface StepRecord {
  total_step: number;
  env_step: number;
  actions: string[];
  info: { r_letter: number; r_word: number; r_game: boolean };
  /** `null` when the recording has no counts for these answers. */
  count: { sure: number; maybe: number; impossible: number } | null;
  /** The replay asked for proposals for this board, which the recorded search never did: it went down where the recording did not. */
  unrecordedProposals?: true;
}

/** The first difference between a replayed puzzle and its recording. */
export interface StepMismatch {
  /** Position of the puzzle in the step log. */
  puzzle: number;
  /** The step (`total_step`) that differs. */
  step: number;
  /** The fields that differ, or `missing` / `extra` when one side has no such step. */
  fields: string[];
  expected: RecordedStep | undefined;
  actual: StepRecord | undefined;
}

/** A replayed puzzle. */
export interface PuzzleReplay {
  steps: StepRecord[];
  /** Steps that differ from the recording (every one after the first difference counts). */
  mismatches: number;
  first: StepMismatch | undefined;
}

/** Replays one puzzle's recorded search and compares it step by step. */
export async function replayPuzzle(
  puzzle: Crossword,
  recorded: readonly RecordedStep[],
  proposals: ReadonlyMap<string, ReadonlyMap<string, number>>,
  options: PaperSearchOptions & { index?: number } = {},
): Promise<PuzzleReplay> {
  const steps: StepRecord[] = [];
  const propose = recordedProposals(proposals);
  const judge = recordedVerdicts(recorded);
  const explorer = new Explorer({
    generator: crosswordGenerator(puzzle, async (board, callOptions) => {
      try {
        return await propose(board, callOptions);
      } catch (error) {
        const step = steps.findLast((s) => s.actions.join('\n') === board.answers.join('\n'));
        if (!step) throw error;
        step.unrecordedProposals = true;
        return new Map();
      }
    }),
    // With evaluation on visit, the search judges each board as it steps into it: one call a step.
    evaluator: crosswordEvaluator(puzzle, async (board, callOptions) => {
      const score = board.score();
      const step: StepRecord = {
        total_step: steps.length,
        env_step: board.answers.length,
        actions: [...board.answers],
        info: { r_letter: score.letters, r_word: score.words, r_game: score.solved },
        count: null,
      };
      steps.push(step);
      step.count = await judge(board, callOptions);
      return step.count;
    }),
    strategy: paperSearch(puzzle, options),
    ...PAPER_LIMITS,
    concurrency: 1,
    taskType: 'crossword',
  });
  await explorer.run(new ThoughtTree({ problem: puzzle.clues.join('\n'), taskType: 'crossword' }));
  return { steps, ...compareSteps(recorded, steps, options.index ?? 0) };
}

/** Compares replayed steps with recorded ones. */
export function compareSteps(recorded: readonly RecordedStep[], steps: readonly StepRecord[], puzzle = 0): Pick<PuzzleReplay, 'mismatches' | 'first'> {
  let mismatches = 0;
  let first: StepMismatch | undefined;
  for (let i = 0; i < Math.max(recorded.length, steps.length); i++) {
    const expected = recorded[i];
    const actual = steps[i];
    const fields = !expected ? ['extra'] : !actual ? ['missing'] : differences(expected, actual);
    if (fields.length === 0) continue;
    mismatches += 1;
    first ??= { puzzle, step: i, fields, expected, actual };
  }
  return { mismatches, first };
}

function differences(expected: RecordedStep, actual: StepRecord): string[] {
  const out: string[] = [];
  if (expected.env_step !== actual.env_step) out.push('env_step');
  if (expected.actions.length !== actual.actions.length || expected.actions.some((a, i) => a !== actual.actions[i])) out.push('actions');
  if (expected.info.r_letter !== actual.info.r_letter) out.push('info.r_letter');
  if (expected.info.r_word !== actual.info.r_word) out.push('info.r_word');
  // Some recordings carry whether the board is solved; the published ones do not.
  if (expected.info.r_game !== undefined && Boolean(expected.info.r_game) !== actual.info.r_game) out.push('info.r_game');
  for (const key of ['sure', 'maybe', 'impossible'] as const) if (expected.count[key] !== actual.count?.[key]) out.push(`count.${key}`);
  if (actual.unrecordedProposals) out.push('proposals');
  return out;
}

/** The paper's figures over puzzles, in percent. */
export interface CrosswordMetrics {
  letters: number;
  words: number;
  games: number;
}

/**
 * The paper's rule for a search's answer: the deepest board it stepped into (the first one if
 * several are as deep). Averages its letters, words and solved games over the puzzles, in percent.
 */
export function paperMetrics(runs: readonly (readonly { env_step: number; info: { r_letter: number; r_word: number; r_game?: boolean | number | undefined } }[])[]): CrosswordMetrics {
  let letters = 0;
  let words = 0;
  let games = 0;
  for (const steps of runs) {
    let best = steps[0];
    for (const step of steps) if (best && step.env_step > best.env_step) best = step;
    if (!best) continue;
    letters += best.info.r_letter;
    words += best.info.r_word;
    games += (best.info.r_game === undefined ? best.info.r_letter === 1 : Boolean(best.info.r_game)) ? 1 : 0;
  }
  const percent = (x: number) => (runs.length === 0 ? 0 : Math.round((10000 * x) / runs.length) / 100);
  return { letters: percent(letters), words: percent(words), games: percent(games) };
}

/**
 * Which puzzle each recorded search is about: the puzzles whose empty board the proposal
 * recording holds (every search starts by proposing for it), in file order.
 */
export function recordedPuzzleIndices(puzzles: readonly Crossword[], proposals: ReadonlyMap<string, unknown>): number[] {
  return puzzles.flatMap((p, i) => (proposals.has(CrosswordBoard.empty(p).render()) ? [i] : []));
}
