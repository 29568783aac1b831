/**
 * A recorded run of the paper's crossword search, in the reference code's files, and the
 * proposal and verdict sources that serve it back to the search:
 *
 * - puzzles (`mini0505.json`): `[clues, answer letters]` per puzzle;
 * - proposals (`env_cache*.json`): rendered board → answer → summed confidence, in proposal order;
 * - steps (`infoss_dfs_*.json`): per puzzle, every board the search stepped into, with the
 *   answers that led there, its agreement with the solution and its clue counts.
 */
import { readFileSync } from 'node:fs';
import { TotError } from '@tot/core';
import { z } from 'zod';
import type { Crossword } from './board.js';
import type { ClueCounts, JudgeFn, ProposeFn } from './roles.js';

const puzzlesSchema = z.array(z.tuple([z.array(z.string()).length(10), z.array(z.string().length(1)).length(25)]));
const cacheSchema = z.record(z.string(), z.record(z.string(), z.number()));
const countSchema = z.object({ sure: z.number().int().nonnegative(), maybe: z.number().int().nonnegative(), impossible: z.number().int().nonnegative() });
const stepSchema = z.looseObject({
  total_step: z.number().int().nonnegative(),
  env_step: z.number().int().nonnegative(),
  actions: z.array(z.string()),
  info: z.looseObject({ r_letter: z.number(), r_word: z.number(), r_game: z.union([z.boolean(), z.number()]).optional() }),
  count: countSchema,
});
const logSchema = z.array(z.array(stepSchema));

/** One step of a recorded search. */
export type RecordedStep = z.infer<typeof stepSchema>;

function readJson<T>(path: string, schema: z.ZodType<T>, what: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new TotError('INVALID_ARGUMENT', `${path}: cannot read ${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new TotError('INVALID_FORMAT', `${path} is not ${what}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Reads the puzzles file. */
export function loadPuzzles(path: string): Crossword[] {
  return readJson(path, puzzlesSchema, 'a list of 5×5 crosswords ([clues, letters])').map(([clues, answer]) => ({ clues, answer }));
}

/** Reads recorded proposals: rendered board → (answer → summed confidence), keys in recorded order. */
export function loadProposals(path: string): Map<string, Map<string, number>> {
  const cache = readJson(path, cacheSchema, 'a proposal cache (board → answer → score)');
  // JSON.parse keeps the file's key order for keys that are not integers, as these never are.
  return new Map(Object.entries(cache).map(([board, answers]) => [board, new Map(Object.entries(answers))]));
}

/** Reads a recorded search: per puzzle, its steps in order. */
export function loadSteps(path: string): RecordedStep[][] {
  const log = readJson(path, logSchema, 'a step log (per puzzle, a list of steps)');
  log.forEach((steps, p) =>
    steps.forEach((step, i) => {
      if (step.total_step !== i) throw new TotError('INVALID_FORMAT', `${path}: puzzle ${p}, step ${i} says total_step ${step.total_step}`);
    }),
  );
  return log;
}

/** Proposals served from a recording; a board it does not hold is a generation error. */
export function recordedProposals(proposals: ReadonlyMap<string, ReadonlyMap<string, number>>): ProposeFn {
  return async (board) => {
    const found = proposals.get(board.render());
    if (!found) throw new TotError('GENERATION_FAILED', `The recording has no proposals for this board (answers: ${board.answers.join(', ') || 'none'}).`);
    return found;
  };
}

/** Clue counts served from a recorded search, by the answers that led to the board. */
export function recordedVerdicts(steps: readonly RecordedStep[]): JudgeFn {
  const byAnswers = new Map<string, ClueCounts>();
  for (const step of steps) byAnswers.set(step.actions.join('\n'), step.count);
  return async (board) => {
    const found = byAnswers.get(board.answers.join('\n'));
    if (!found) throw new TotError('INVALID_ARGUMENT', `The recording has no clue counts for the answers ${board.answers.join(', ')}.`);
    return { ...found };
  };
}
