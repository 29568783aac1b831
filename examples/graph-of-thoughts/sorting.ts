/**
 * The Graph-of-Thoughts paper's sorting graph for 32 numbers (digits 0–9), built from this
 * library's operations with prompts written for it: split the list in two, sort each half
 * `sortResponses` times, score each attempt by the paper's error count, keep the best; merge the
 * two best halves `mergeResponses` times, score, keep the best; improve that `improveResponses`
 * times, score, keep the best; then mark whether it is the correct sort.
 */
import { aggregate, generate, groundTruth, improve, keepBest, OperationGraph, score, select, type OperationRef } from '@tot/core/graph';

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
  const open = text.indexOf('[', at === -1 ? 0 : at);
  const close = open === -1 ? -1 : text.indexOf(']', open);
  if (close === -1) throw new Error('no [ … ] list in the reply');
  // Read by hand: replies are parsed on every call, and split/map/Number cost the sorting benchmark more than the graph did.
  const out: number[] = [];
  let value = 0;
  let digits = 0;
  let negative = false;
  for (let i = open + 1; i <= close; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits += 1;
    } else if (c === 45 && digits === 0 && !negative) negative = true;
    else if (c === 44 || c === 93) {
      if (digits === 0) {
        if (c === 93 && out.length === 0 && !negative) break;
        throw new Error(`the list "${text.slice(open, close + 1)}" holds something that is not an integer`);
      }
      out.push(negative ? -value : value);
      value = digits = 0;
      negative = false;
    } else if (c !== 32 && c !== 10 && c !== 13 && c !== 9) throw new Error(`the list "${text.slice(open, close + 1)}" holds something that is not an integer`);
  }
  return out;
}

/**
 * The paper's error count: for each digit, how far its count in `current` is from its count in
 * `input`, plus the adjacent pairs out of order. 0 is a correct sort.
 */
export function numErrors(input: readonly number[], current: readonly number[]): number {
  const counts = new Int32Array(10);
  let errors = 0;
  for (const x of input) if (x >= 0 && x <= 9) counts[x]! += 1;
  for (let i = 0; i < current.length; i++) {
    const x = current[i]!;
    if (x >= 0 && x <= 9) counts[x]! -= 1;
    else errors += 1;
    if (i > 0 && current[i - 1]! > x) errors += 1;
  }
  for (const c of counts) errors += Math.abs(c);
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

export interface SortingOpsOptions extends SortingGraphOptions {
  /** The operation whose output thoughts hold the lists to sort (one each). Default: the run's input. */
  after?: OperationRef;
  /** Put before every operation id, to add several sorting graphs to one graph. Default ''. */
  prefix?: string;
}

/** Adds the sorting operations to `g`; returns the last one (its output: the best sort, marked `solved` when correct). */
export function addSortingOps(g: OperationGraph<SortState>, options: SortingOpsOptions = {}): OperationRef {
  const { sortResponses = 5, mergeResponses = 10, improveResponses = 10, prefix = '' } = options;
  const id = (name: string) => `${prefix}${name}`;
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
    { id: id('split'), after: options.after ? [options.after] : [] },
  );
  const best = ([1, 2] as const).map((i) => {
    const half = g.add(select<SortState>((ts) => ts.filter((t) => t.state.part === `List ${i}`)), { after: [split], id: id(`list-${i}`) });
    const sorted = g.add(generate<SortState>({ prompt: sortPrompt, parse: (text, s) => ({ ...s, current: parseList(text) }), responses: sortResponses }), { after: [half], id: id(`sort-${i}`) });
    const scored = g.add(errors(), { after: [sorted], id: id(`score-${i}`) });
    return g.add(keepBest({ n: 1, higherIsBetter: false }), { after: [scored], id: id(`best-${i}`) });
  });
  const merged = g.add(
    aggregate<SortState>({ prompt: mergePrompt, parse: (text, states) => ({ part: 'merged', input: states.flatMap((s) => s.input), current: parseList(text) }), responses: mergeResponses }),
    { after: best, id: id('merge') },
  );
  const chain = (op: Parameters<typeof g.add>[0], name: string, after: OperationRef) => g.add(op, { after: [after], id: id(name) });
  let last = chain(errors(), 'score-merge', merged);
  last = chain(keepBest({ n: 1, higherIsBetter: false }), 'best-merge', last);
  last = chain(improve<SortState>({ prompt: improvePrompt, parse: (text, s) => ({ ...s, current: parseList(text) }), responses: improveResponses }), 'improve', last);
  last = chain(errors(), 'score-improve', last);
  last = chain(keepBest({ n: 1, higherIsBetter: false }), 'best-improve', last);
  return chain(groundTruth<SortState>(isSorted), 'check', last);
}

/** The sorting graph on the run's input. */
export function sortingGraph(options: SortingGraphOptions = {}): OperationGraph<SortState> {
  const g = new OperationGraph<SortState>();
  addSortingOps(g, options);
  return g;
}

/** The run input for a list. */
export const sortingInput = (list: number[]): SortState => ({ input: list, current: list });
