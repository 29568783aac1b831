/**
 * The Graph-of-Thoughts paper's sorting graph for 32 numbers (digits 0–9), built from this
 * library's operations with prompts written for it: split the list in two, sort each half
 * `sortResponses` times, score each attempt by the paper's error count, keep the best; merge the
 * two best halves `mergeResponses` times, score, keep the best; improve that `improveResponses`
 * times, score, keep the best; then mark whether it is the correct sort.
 */
import { aggregate, generate, groundTruth, improve, keepBest, OperationGraph, score, select } from '@tot/core';

export interface SortState {
  /** The list this thought must be a sort of (a half after the split, the whole list after the merge). */
  input: number[];
  /** This thought's list: the unsorted half, a sort attempt, a merge, an improvement. */
  current: number[];
  part?: 'List 1' | 'List 2' | 'merged';
}

export interface SortingGraphOptions {
  sortResponses?: number;
  mergeResponses?: number;
  improveResponses?: number;
}

const show = (list: readonly number[]) => `[${list.join(', ')}]`;

/** The first `[…]` list after the last `Output:` (or in the whole reply): integers, else it throws. */
export function parseList(text: string): number[] {
  const at = text.lastIndexOf('Output:');
  const m = /\[([^[\]]*)\]/.exec(at === -1 ? text : text.slice(at));
  if (!m) throw new Error('no [ … ] list in the reply');
  if (m[1]!.trim() === '') return [];
  return m[1]!.split(',').map((x) => {
    const n = Number(x.trim());
    if (!Number.isInteger(n)) throw new Error(`"${x.trim()}" is not an integer`);
    return n;
  });
}

/**
 * The paper's error count: for each digit, how far its count in `current` is from its count in
 * `input`, plus the adjacent pairs out of order. 0 is a correct sort.
 */
export function numErrors(input: readonly number[], current: readonly number[]): number {
  let errors = 0;
  for (let d = 0; d <= 9; d++) errors += Math.abs(current.filter((x) => x === d).length - input.filter((x) => x === d).length);
  for (let i = 1; i < current.length; i++) if (current[i - 1]! > current[i]!) errors += 1;
  return errors;
}

export const isSorted = (s: SortState) => show(s.current) === show([...s.input].sort((a, b) => a - b));

const splitPrompt = (s: SortState) =>
  `Split this list of ${s.current.length} numbers in two halves, keeping the order: the first ${s.current.length / 2} numbers, then the rest.\n` +
  `Reply with JSON only: {"List 1": [...], "List 2": [...]}\n\nList: ${show(s.current)}`;

const sortPrompt = (s: SortState) => `Sort this list of numbers in ascending order. Reply with the sorted list only.\n\nList: ${show(s.current)}`;

const mergePrompt = (states: SortState[]) =>
  `Merge these two sorted lists into one sorted list of ${states.reduce((n, s) => n + s.current.length, 0)} numbers, the way merge sort does. Reply with the merged list only.\n\n` +
  states.map((s, i) => `${i + 1}: ${show(s.current)}`).join('\n');

const improvePrompt = (s: SortState) =>
  `This list should be the input sorted in ascending order, with the same ${s.input.length} numbers, but it has mistakes. ` +
  `Count each digit in both, fix the sorted list, and end your reply with "Output: [...]".\n\nInput: ${show(s.input)}\nIncorrectly sorted: ${show(s.current)}`;

/** The step of the paper's recorded run each model operation of {@link sortingGraph} plays. */
export const SORTING_STEPS: Record<string, string> = { split: '1', 'sort-1': '2a', 'sort-2': '2b', merge: '3', improve: '4' };

/** The sorting graph. Its last operation's output is the best improved sort, marked `solved` when correct. */
export function sortingGraph(options: SortingGraphOptions = {}): OperationGraph<SortState> {
  const { sortResponses = 5, mergeResponses = 10, improveResponses = 10 } = options;
  const g = new OperationGraph<SortState>();
  const errors = () => score<SortState>({ score: (s) => numErrors(s.input, s.current) });
  const split = g.add(
    generate<SortState>({
      prompt: splitPrompt,
      parse: (text) => {
        const halves = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as Record<string, unknown>;
        return (['List 1', 'List 2'] as const).map((part) => {
          const list = parseList(JSON.stringify(halves[part]));
          return { part, input: list, current: list };
        });
      },
    }),
    { id: 'split' },
  );
  const best = ([1, 2] as const).map((i) => {
    const half = g.add(select<SortState>((ts) => ts.filter((t) => t.state.part === `List ${i}`)), { after: [split], id: `list-${i}` });
    const sorted = g.add(generate<SortState>({ prompt: sortPrompt, parse: (text, s) => ({ ...s, current: parseList(text) }), responses: sortResponses }), { after: [half], id: `sort-${i}` });
    const scored = g.add(errors(), { after: [sorted], id: `score-${i}` });
    return g.add(keepBest({ n: 1, higherIsBetter: false }), { after: [scored], id: `best-${i}` });
  });
  const merged = g.add(
    aggregate<SortState>({ prompt: mergePrompt, parse: (text, states) => ({ part: 'merged', input: states.flatMap((s) => s.input), current: parseList(text) }), responses: mergeResponses }),
    { after: best, id: 'merge' },
  );
  g.add(errors(), { after: [merged], id: 'score-merge' });
  g.add(keepBest({ n: 1, higherIsBetter: false }), { id: 'best-merge' });
  g.add(improve<SortState>({ prompt: improvePrompt, parse: (text, s) => ({ ...s, current: parseList(text) }), responses: improveResponses }), { id: 'improve' });
  g.add(errors(), { id: 'score-improve' });
  g.add(keepBest({ n: 1, higherIsBetter: false }), { id: 'best-improve' });
  g.add(groundTruth<SortState>(isSorted), { id: 'check' });
  return g;
}

/** The run input for a list. */
export const sortingInput = (list: number[]): SortState => ({ input: list, current: list });
