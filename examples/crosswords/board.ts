/**
 * A 5×5 mini crossword as the Tree-of-Thoughts paper's search sees it: the board's letters, each
 * clue's status (unfilled, filled, or changed: a filled letter overwritten by a crossing answer),
 * and the text the propose prompt shows. A board is a value: `fill` returns a new one.
 */
import { TotError } from '@tot/core';

/** A puzzle: ten clues (h1–h5 across, then v1–v5 down) and the 25 letters of its solution, row by row. */
export interface Crossword {
  clues: string[];
  answer: string[];
}

/** A clue's status: never filled, filled by an answer, or filled and then changed by a crossing answer. */
export type ClueStatus = 'unfilled' | 'filled' | 'changed';

const ACTION = /^([hv])([1-5])\. ([a-zA-Z]{5})$/;
const EMPTY = '_';

/** The clue name of word `i` (0–9): h1–h5, then v1–v5. */
export const clueName = (i: number) => (i < 5 ? `h${i + 1}` : `v${i - 4}`);

/** The board cells of word `i` (0–9), in reading order. */
export function cellsOf(i: number): number[] {
  return i < 5 ? [0, 1, 2, 3, 4].map((c) => i * 5 + c) : [0, 1, 2, 3, 4].map((r) => r * 5 + (i - 5));
}

const wordsOf = (letters: readonly string[]) => Array.from({ length: 10 }, (_, i) => cellsOf(i).map((c) => letters[c]).join(''));

/**
 * A board: letters (upper case, `_` when empty), each clue's status, and the answers filled so far.
 *
 * @example
 * ```ts
 * const board = CrosswordBoard.empty(puzzle).fill('h2. motor');
 * board.words()[1]; // 'MOTOR'
 * ```
 */
export class CrosswordBoard {
  private constructor(
    readonly puzzle: Crossword,
    readonly letters: readonly string[],
    readonly status: readonly ClueStatus[],
    /** The answers filled so far, in order (as many as the paper's `env.steps`). */
    readonly answers: readonly string[],
  ) {}

  static empty(puzzle: Crossword): CrosswordBoard {
    if (puzzle.clues.length !== 10 || puzzle.answer.length !== 25) {
      throw new TotError('INVALID_ARGUMENT', `A 5×5 crossword has 10 clues and 25 letters, not ${puzzle.clues.length} and ${puzzle.answer.length}.`);
    }
    return new CrosswordBoard(puzzle, Array(25).fill(EMPTY), Array(10).fill('unfilled'), []);
  }

  /** The ten words as they stand (h1–h5, v1–v5), `_` for empty cells. */
  words(): string[] {
    return wordsOf(this.letters);
  }

  /**
   * Writes an answer such as `h2. motor`. A crossing clue whose filled letter changes becomes
   * `changed`; the clue written becomes `filled`.
   */
  fill(action: string): CrosswordBoard {
    const m = ACTION.exec(action.trim());
    if (!m) throw new TotError('INVALID_ARGUMENT', `"${action}" is not an answer of the form "h1. apple" (h1–h5 or v1–v5, five letters).`);
    const index = (m[1] === 'h' ? 0 : 5) + Number(m[2]) - 1;
    const letters = [...this.letters];
    const word = m[3]!.toUpperCase();
    cellsOf(index).forEach((cell, k) => (letters[cell] = word[k]!));
    const before = this.words();
    const after = wordsOf(letters);
    const status = this.status.map((s, i): ClueStatus => ([...before[i]!].some((l, k) => l !== EMPTY && l !== after[i]![k]) ? 'changed' : s));
    status[index] = 'filled';
    return new CrosswordBoard(this.puzzle, letters, status, [...this.answers, `${m[1]}${m[2]}. ${m[3]!.toLowerCase()}`]);
  }

  /** Whether an answer overwrote a filled letter: the paper's search never steps into such a board. */
  hasConflict(): boolean {
    return this.status.includes('changed');
  }

  /** The board and every clue under its status: the state the propose prompt shows the model. */
  render(): string {
    const rows = [0, 1, 2, 3, 4].map((r) => `${this.letters.slice(r * 5, r * 5 + 5).join('')}\n`).join('');
    const words = this.words();
    const section = (status: ClueStatus) =>
      words.map((w, i) => (this.status[i] === status ? `${clueName(i)}. ${this.puzzle.clues[i]}: ${w}\n` : '')).join('');
    return `Current Board:\n${rows}\nUnfilled:\n${section('unfilled')}\nFilled:\n${section('filled')}\nChanged:\n${section('changed')}`;
  }

  /**
   * The clues the evaluator judges: those with at least two letters on the board, each as
   * `<clue>: a _ _ _ b` (lower case, spaced).
   */
  constrainedClues(): string[] {
    return this.words().flatMap((w, i) => ([...w].filter((l) => l === EMPTY).length >= 4 ? [] : [`${this.puzzle.clues[i]}: ${[...w.toLowerCase()].join(' ')}`]));
  }

  /** Agreement with the solution: the share of letters and of words right, and whether it is solved. */
  score(): { letters: number; words: number; solved: boolean } {
    const answer = this.puzzle.answer.map((l) => l.toUpperCase());
    const right = this.letters.filter((l, i) => l === answer[i]).length;
    const solution = wordsOf(answer);
    const words = this.words().filter((w, i) => w === solution[i]).length;
    return { letters: right / 25, words: words / 10, solved: right === 25 };
  }
}
