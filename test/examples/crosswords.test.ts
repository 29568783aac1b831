import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { Explorer, fromFunction, ThoughtTree, TotError } from '../../src/index.js';
import { CrosswordBoard, type Crossword } from '../../examples/crosswords/board.js';
import { parseClueVerdict, parseProposals, proposePrompt } from '../../examples/crosswords/prompts.js';
import { loadProposals, loadPuzzles, loadSteps } from '../../examples/crosswords/replay.js';
import { paperMetrics, recordedPuzzleIndices, replayPuzzle } from '../../examples/crosswords/reproduce.js';
import { boardOf, countsOf, crosswordEvaluator, crosswordGenerator, modelJudge, modelProposals, PAPER_LIMITS, paperSearch } from '../../examples/crosswords/roles.js';

// The recorded GPT-4 run (MIT), beside the repository: ../shared/data/tot-reference/crosswords/.
const data = fileURLToPath(new URL('../../../shared/data/tot-reference/crosswords/', import.meta.url));

/**
 * A word square: every row reads the same as its column.
 *
 *   H E A R T
 *   E M B E R
 *   A B U S E
 *   R E S I N
 *   T R E N D
 */
const ROWS = ['heart', 'ember', 'abuse', 'resin', 'trend'];
const square: Crossword = { clues: ROWS.flatMap((w) => [`clue of ${w}`]).concat(ROWS.map((w) => `down clue of ${w}`)), answer: [...ROWS.join('').toUpperCase()] };

describe('the crossword board', () => {
  it('writes an answer across and the crossing words show its letters', () => {
    const board = CrosswordBoard.empty(square).fill('h1. heart');
    expect(board.words()[0]).toBe('HEART');
    expect(board.words()[5]).toBe('H____');
    expect(board.status[0]).toBe('filled');
    expect(board.answers).toEqual(['h1. heart']);
  });

  it('marks a filled clue changed when a crossing answer overwrites one of its letters', () => {
    const board = CrosswordBoard.empty(square).fill('h1. heart').fill('v1. toast');
    expect(board.status[0]).toBe('changed');
    expect(board.status[5]).toBe('filled');
    expect(board.hasConflict()).toBe(true);
  });

  it('has no conflict when a crossing answer agrees with the filled letters', () => {
    expect(CrosswordBoard.empty(square).fill('h1. heart').fill('v1. heart').hasConflict()).toBe(false);
  });

  it('judges only the clues with at least two letters on the board', () => {
    expect(CrosswordBoard.empty(square).fill('h1. heart').constrainedClues()).toEqual(['clue of heart: h e a r t']);
  });

  it('scores letters and words against the solution', () => {
    expect(CrosswordBoard.empty(square).fill('h1. heart').fill('h2. ember').score()).toEqual({ letters: 0.4, words: 0.2, solved: false });
  });

  it('refuses an answer that is not of the form "h1. apple"', () => {
    const attempt = () => CrosswordBoard.empty(square).fill('h6. apple');
    expect(attempt).toThrow(TotError);
    expect(attempt).toThrow(/h1–h5 or v1–v5/);
  });

  it('renders a board exactly as the recorded proposals are keyed', () => {
    const puzzles = loadPuzzles(`${data}mini0505.json`);
    const proposals = loadProposals(`${data}env_cache_0-45.json`);
    const board = CrosswordBoard.empty(puzzles[0]!).fill('h2. motor');
    expect(proposals.has(CrosswordBoard.empty(puzzles[0]!).render())).toBe(true);
    expect(proposals.has(board.render())).toBe(true);
  });
});

describe('the crossword prompts', () => {
  it('sums each answer\'s confidence over the samples, in the order answers are first proposed', () => {
    const scores = parseProposals(['h2. ember (medium)\nh1. heart (high)\nnot an answer', 'h1. heart (low)\nh2. ember (low)\nv1. hi (high)']);
    expect([...scores]).toEqual([
      ['h2. ember', 0.2 + 0.1],
      ['h1. heart', 0.5 + 0.1],
    ]);
  });

  it('reads a clue verdict from the reply\'s last line', () => {
    expect(parseClueVerdict('tiger fits\nsure')).toBe('sure');
    expect(parseClueVerdict('none comes to mind\nimpossible ')).toBe('impossible');
    expect(parseClueVerdict('sure\nI think so')).toBeUndefined();
  });

  it('shows the model the board', () => {
    expect(proposePrompt(CrosswordBoard.empty(square).render())).toContain('Unfilled:\nh1. clue of heart: _____');
  });
});

describe('the crossword roles on a model', () => {
  /** A model that proposes the solution's word for the first unfilled clue, and judges every clue sure. */
  const oracle = fromFunction((prompt) => {
    if (!prompt.includes('Current Board:')) return 'it fits\nsure';
    const unfilled = /Unfilled:\n([hv][1-5])\./.exec(prompt)?.[1];
    if (!unfilled) return '';
    const index = (unfilled[0] === 'h' ? 0 : 5) + Number(unfilled[1]) - 1;
    return `${unfilled}. ${ROWS[index % 5]} (certain)`;
  }, { modelId: 'oracle' });

  it('sums the samples\' confidences into each candidate\'s proposal score', async () => {
    const generator = crosswordGenerator(square, modelProposals(oracle, { samples: 3 }));
    const tree = new ThoughtTree({ problem: 'square' });
    expect(await generator.generate({ tree, parent: tree.root, k: 10, context: { problem: 'square', taskType: 'crossword', maxDepth: 9 } })).toEqual([{ content: 'h1. heart', metadata: { proposalScore: 3 } }]);
  });

  it('counts the verdicts of the constrained clues', async () => {
    const evaluator = crosswordEvaluator(square, modelJudge(oracle));
    const tree = new ThoughtTree({ problem: 'square' });
    const node = tree.addChild(tree.root.id, { content: 'h1. heart' });
    const batch = await evaluator.evaluate({ tree, candidates: [node], context: { problem: 'square', taskType: 'crossword', maxDepth: 9 } });
    expect(batch.evaluations[0]?.dimensionScores).toEqual({ sure: 1, maybe: 0, impossible: 0 });
  });

  it('solves the word square with the paper\'s search: its deepest board has every letter', async () => {
    const explorer = new Explorer({ generator: crosswordGenerator(square, modelProposals(oracle, { samples: 1 })), evaluator: crosswordEvaluator(square, modelJudge(oracle)), strategy: paperSearch(square), ...PAPER_LIMITS });
    const tree = new ThoughtTree({ problem: 'square' });
    await explorer.run(tree);
    const deepest = [...tree.all()].reduce((a, b) => (b.depth > a.depth ? b : a));
    expect(deepest.depth).toBe(9);
    expect(boardOf(square, tree, deepest).score().solved).toBe(true);
    expect(countsOf(deepest)).toEqual({ sure: 10, maybe: 0, impossible: 0 });
  });
});

describe('the recorded GPT-4 crossword run, replayed', () => {
  const puzzles = loadPuzzles(`${data}mini0505.json`);
  const proposals = loadProposals(`${data}env_cache_0-45.json`);
  const log = loadSteps(`${data}infoss_dfs_prune_0-45.json`);

  it('matches each recorded search to its puzzle by the empty board the proposals hold', () => {
    expect(recordedPuzzleIndices(puzzles, proposals)).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45]);
  });

  it('takes every recorded step of the first puzzle', async () => {
    const replay = await replayPuzzle(puzzles[0]!, log[0]!, proposals);
    expect(replay.steps).toHaveLength(100);
    expect(replay.steps[0]?.actions).toEqual(['h2. motor']);
    expect(replay.mismatches).toBe(0);
  });

  it('computes the paper\'s figures from each puzzle\'s deepest board, the first one if several', () => {
    const step = (env_step: number, r_letter: number) => ({ env_step, info: { r_letter, r_word: r_letter } });
    expect(paperMetrics([[step(1, 0.2), step(2, 0.4), step(2, 1)], [step(1, 1)]])).toEqual({ letters: 70, words: 70, games: 50 });
  });
});

describe('examples/crosswords', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const dir = `${root}examples/crosswords/`;

  it('is written against the published API only', () => {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const imports = [...readFileSync(dir + file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      for (const source of imports) expect(['@tot/core', '@tot/core/openai', 'openai', 'zod'].includes(source) || source.startsWith('./') || source.startsWith('node:'), `${file} imports ${source}`).toBe(true);
    }
  });

  it('replays the first two recorded puzzles offline and prints the paper\'s figures', async () => {
    const { OPENAI_BASE_URL: _url, OPENAI_API_KEY: _key, ...env } = process.env;
    // Bundled with its sources under plain node: tsx would compile them on every start.
    const out = execFileSync(process.execPath, [await bundleFixture('examples/crosswords/main.ts'), '--puzzles', '2'], { cwd: root, encoding: 'utf8', env });
    expect(out).toContain('Puzzle 5: 100 steps');
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ puzzles: 2, letters: 64, words: 55, games: 50 });
  }, 60_000);
});
