import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CrosswordBoard } from '../../examples/crosswords/board.js';
import { loadProposals, loadPuzzles, loadSteps, type RecordedStep } from '../../examples/crosswords/replay.js';
import { replayPuzzle } from '../../examples/crosswords/reproduce.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';

// The recorded GPT-4 run (MIT), beside the repository: ../shared/data/tot-reference/crosswords/.
const data = fileURLToPath(new URL('../../../shared/data/tot-reference/crosswords/', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tot-crosswords-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const puzzle = loadPuzzles(`${data}mini0505.json`)[0]!;
const cacheJson = JSON.parse(readFileSync(`${data}env_cache_0-45.json`, 'utf8')) as Record<string, Record<string, number>>;
const logJson = JSON.parse(readFileSync(`${data}infoss_dfs_prune_0-45.json`, 'utf8')) as RecordedStep[][];

/** Writes a changed copy of the first puzzle's recording and replays it from the files. */
async function replayChanged(name: string, change: (cache: Record<string, Record<string, number>>, steps: RecordedStep[]) => void) {
  const cache = structuredClone(cacheJson);
  const steps = structuredClone(logJson[0]!);
  change(cache, steps);
  writeFileSync(join(dir, `${name}-cache.json`), JSON.stringify(cache));
  writeFileSync(join(dir, `${name}-log.json`), JSON.stringify([steps]));
  return replayPuzzle(puzzle, loadSteps(join(dir, `${name}-log.json`))[0]!, loadProposals(join(dir, `${name}-cache.json`)));
}

const boardAfter = (answers: readonly string[]) => answers.reduce((b, a) => b.fill(a), CrosswordBoard.empty(puzzle));

describe('a changed crossword recording', () => {
  it('with two proposals swapped is reported at the step that tried the first of them', async () => {
    const recorded = logJson[0]![1]!;
    const parent = boardAfter(recorded.actions.slice(0, -1)).render();
    let swapped: string[] = [];
    const replay = await replayChanged('swapped', (cache) => {
      const answers = cache[parent]!;
      // The parent's valid answers, best first: step 1 took the first; swap its score with the second's.
      const valid = Object.keys(answers)
        .sort((a, b) => answers[b]! - answers[a]!)
        .filter((a) => !boardAfter([...recorded.actions.slice(0, -1), a]).hasConflict());
      swapped = valid.slice(0, 2);
      [answers[swapped[0]!], answers[swapped[1]!]] = [answers[swapped[1]!]!, answers[swapped[0]!]!];
    });
    expect(swapped[0]).toBe(recorded.actions.at(-1));
    expect(replay.first).toMatchObject({ step: 1, fields: expect.arrayContaining(['actions']) });
    expect(replay.first?.actual?.actions.at(-1)).toBe(swapped[1]);
  });

  it('with a pruned step\'s impossible count cleared is reported at that step: the replay goes down where the recording did not', async () => {
    const k = logJson[0]!.findIndex((s) => s.count.impossible >= 1);
    const replay = await replayChanged('count', (_, steps) => {
      steps[k]!.count.impossible = 0;
    });
    expect(k).toBeGreaterThan(0);
    expect(replay.first).toMatchObject({ step: k, fields: ['proposals'] });
    // Finding no proposals for that board, the search comes back up and goes on as recorded.
    expect(replay.mismatches).toBe(1);
  });

  it('makes the benchmark exit 1 with the mismatch in its last line', async () => {
    await replayChanged('bench', (_, steps) => {
      steps.find((s) => s.count.impossible >= 1)!.count.impossible = 0;
    });
    // The benchmark bundled with its sources, under plain node: `npx tsx` would start npm and compile them.
    const args = [await bundleFixture('bench/crosswords.ts'), '--puzzles', `${data}mini0505.json`, '--cache', join(dir, 'bench-cache.json'), '--log', join(dir, 'bench-log.json'), '--indices', '0', '--repeats', '1'];
    const failure = await promisify(execFile)(process.execPath, args, { cwd: root, env: { ...process.env, TOT_BENCH_DIR: dir } }).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const last = JSON.parse(failure!.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ puzzles: 1, exact: 0, steps: 100, stepMismatches: 1 });
  }, 60_000);
});

describe('the crossword benchmark with --metrics-only', () => {
  it('reads the paper\'s figures from a step log without replaying it', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [await bundleFixture('bench/crosswords.ts'), '--metrics-only', '--log', `${data}infoss_dfs_prune_0-45.json`], { cwd: root });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ puzzles: 10, exact: null, steps: 1000, stepMismatches: null, letters: 84, words: 65, games: 20 });
  }, 60_000);
});
