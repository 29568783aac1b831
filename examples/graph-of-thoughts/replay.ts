/**
 * Replays a recorded Graph-of-Thoughts run through this library's operation graph: a model that
 * serves, for each model operation, the responses recorded for the step it plays, and checks that
 * every "keep the best" chose what the recorded next step was given, and that the run ends in the
 * recording's final result.
 */
import { TotError, type EventStore, type GenerateRequest, type GenerateResult, type LanguageModel } from '@tot/core';
import type { OperationGraph, OperationGraphResult } from '@tot/core/graph';
import { KEYWORD_STEPS, keywordCountingGraph, type CountState, type Counts } from './keyword-counting.js';
import { listsIn, objectsIn, promptData, type GotRecording, type RecordedStep } from './recording.js';
import { SORTING_STEPS, sortingGraph, sortingInput, type SortState } from './sorting.js';

const canonical = (v: unknown): string => (Array.isArray(v) ? `[${v.map(canonical).join(',')}]` : typeof v === 'object' && v !== null ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}` : JSON.stringify(v));
const normalised = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Whether a request carries the data the recorded step's prompt was given (the prompts differ; the
 * data must not): the lists and JSON objects after the recorded prompt's last closing tag, in
 * order, or, when it has none, its text (a paragraph to count in), which the request must contain.
 */
export function carriesRecordedData(recordedPrompt: string, request: string): boolean {
  const data = promptData(recordedPrompt);
  const lists = listsIn(data);
  const objects = objectsIn(data);
  if (lists.length > 0 || objects.length > 0) return canonical(lists) === canonical(listsIn(request)) && canonical(objects) === canonical(objectsIn(request));
  return normalised(request).includes(normalised(data.replace(/^\s*Input:/, '')));
}

/** A model that answers each operation with the responses recorded for its step, once, when the request carries the step's data. */
export function recordedModel(recording: GotRecording, steps: Record<string, string>): LanguageModel & { served: Set<string> } {
  const served = new Set<string>();
  return {
    modelId: `recording:${recording.title}`,
    capabilities: { multipleOutputs: true },
    served,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const operation = request.tags?.operation ?? '(untagged)';
      const label = steps[operation];
      const step = label === undefined ? undefined : recording.steps.get(label);
      if (!step) throw new TotError('GENERATION_FAILED', `The recording has no step for operation "${operation}".`, { recoverable: false, details: { retryable: false } });
      if (served.has(step.label)) throw new TotError('GENERATION_FAILED', `Step ${step.label} was already served (operation "${operation}" asked twice).`, { recoverable: false, details: { retryable: false } });
      if (!carriesRecordedData(step.prompt, request.messages.map((m) => m.content).join('\n'))) {
        throw new TotError('GENERATION_FAILED', `Operation "${operation}" did not give the model the data step ${step.label} was given.`, { recoverable: false, details: { retryable: false } });
      }
      const n = request.n ?? 1;
      if (n !== step.responses.length) throw new TotError('GENERATION_FAILED', `Operation "${operation}" asked for ${n} responses; step ${step.label} recorded ${step.responses.length}.`, { recoverable: false, details: { retryable: false } });
      served.add(step.label);
      return { outputs: [...step.responses], usage: {} };
    },
  };
}

/** One comparison of the replay with the recording. */
export interface ReplayCheck {
  what: string;
  expected: string;
  got: string;
  ok: boolean;
}

export interface ReplayReport<S> {
  task: 'sorting' | 'keyword-counting';
  /** The final result equals the recording's. */
  finalMatches: boolean;
  /**
   * Every check (the final result's included) passed, every recorded step was served to a request
   * carrying its data, and the run completed. Replies the graph could not parse (the recording's
   * own bad replies) are dropped as the paper's code drops them; they are in `result.errors`.
   */
  ok: boolean;
  checks: ReplayCheck[];
  /** Recorded steps no operation asked for. */
  unusedSteps: string[];
  result: OperationGraphResult<S>;
}

const step = (recording: GotRecording, label: string): RecordedStep => {
  const s = recording.steps.get(label);
  if (!s) throw new Error(`the recording has no step ${label}`);
  return s;
};

function check(what: string, expected: unknown, got: unknown, exact = false): ReplayCheck {
  const e = exact ? JSON.stringify(expected) : canonical(expected);
  const g = exact ? JSON.stringify(got) : canonical(got);
  return { what, expected: e ?? 'nothing', got: g ?? 'nothing', ok: e === g && e !== undefined };
}

export interface ReplayOptions {
  concurrency?: number;
  store?: EventStore;
  runId?: string;
}

async function runReplay<S>(recording: GotRecording, graph: OperationGraph<S>, steps: Record<string, string>, input: S, options: ReplayOptions) {
  const model = recordedModel(recording, steps);
  const result = await graph.run({ model, input, concurrency: options.concurrency ?? 16, ...(options.store ? { store: options.store } : {}), ...(options.runId ? { runId: options.runId } : {}) });
  const unusedSteps = [...recording.steps.keys()].filter((label) => !model.served.has(label));
  return { result, unusedSteps };
}

const only = <S>(r: OperationGraphResult<S>, op: string): S | undefined => r.graph.outputsOf(op)?.[0]?.state;

/** Replays a sorting recording (`example_prompts_sorting_<n>.md`). */
export async function replaySorting(recording: GotRecording, options: ReplayOptions = {}): Promise<ReplayReport<SortState>> {
  const [input] = listsIn(recording.input);
  if (!input) throw new Error('the recording\'s input is not a list of numbers');
  const graph = sortingGraph({ sortResponses: step(recording, '2a').responses.length, mergeResponses: step(recording, '3').responses.length, improveResponses: step(recording, '4').responses.length });
  const { result, unusedSteps } = await runReplay(recording, graph, SORTING_STEPS, sortingInput(input), options);
  const halves = [listsIn(promptData(step(recording, '2a').prompt)).at(-1), listsIn(promptData(step(recording, '2b').prompt)).at(-1)];
  const merged = listsIn(promptData(step(recording, '3').prompt)).slice(-2);
  const [final] = listsIn(recording.finalResult);
  const checks = [
    check('split: list 1 as step 2a was given it', halves[0], only(result, 'list-1')?.current),
    check('split: list 2 as step 2b was given it', halves[1], only(result, 'list-2')?.current),
    check('keep the best of step 2a: the list step 3 merged first', merged[0], only(result, 'best-1')?.current),
    check('keep the best of step 2b: the list step 3 merged second', merged[1], only(result, 'best-2')?.current),
    check('keep the best of step 3: the list step 4 improved', listsIn(promptData(step(recording, '4').prompt)).at(-1), only(result, 'best-merge')?.current),
    check('final result', final, result.thoughts[0]?.state.current, true),
  ];
  return report('sorting', checks, unusedSteps, result);
}

const paragraphOf = (prompt: string) => promptData(prompt).replace(/^\s*Input:\s*/, '').trim();

/** Replays a keyword-counting recording (`example_prompts_keyword_counting.md`, GoT4). */
export async function replayKeywordCounting(recording: GotRecording, options: ReplayOptions = {}): Promise<ReplayReport<CountState>> {
  const graph = keywordCountingGraph({ countResponses: step(recording, '2a').responses.length, mergeResponses: step(recording, '3a').responses.length });
  const { result, unusedSteps } = await runReplay(recording, graph, KEYWORD_STEPS, { text: recording.input.trim() }, options);
  const given = (label: string) => objectsIn(promptData(step(recording, label).prompt)).slice(-2) as Counts[];
  const [final] = objectsIn(recording.finalResult);
  const checks: ReplayCheck[] = [];
  ['2a', '2b', '2c', '2d'].forEach((label, i) => checks.push(check(`split: paragraph ${i + 1} as step ${label} was given it`, paragraphOf(step(recording, label).prompt), only(result, `paragraph-${i + 1}`)?.text)));
  const chosen: [string, string, number][] = [
    ['best-count-1', '3a', 0],
    ['best-count-2', '3a', 1],
    ['best-count-3', '3b', 0],
    ['best-count-4', '3b', 1],
    ['best-a', '3c', 0],
    ['best-b', '3c', 1],
  ];
  for (const [op, label, i] of chosen) checks.push(check(`${op}: the counts step ${label} merged ${i === 0 ? 'first' : 'second'}`, given(label)[i], only(result, op)?.counts));
  checks.push(check('final result', final, result.thoughts[0]?.state.counts, true));
  return report('keyword-counting', checks, unusedSteps, result);
}

function report<S>(task: ReplayReport<S>['task'], checks: ReplayCheck[], unusedSteps: string[], result: OperationGraphResult<S>): ReplayReport<S> {
  const finalMatches = checks.at(-1)!.ok;
  const callFailures = result.errors.filter((e) => e.code === 'GENERATION_FAILED');
  return { task, finalMatches, ok: checks.every((c) => c.ok) && unusedSteps.length === 0 && callFailures.length === 0 && result.stopReason === 'completed', checks, unusedSteps, result };
}

/** Replays a recording of either task, told apart by its title. */
export function replayRecording(recording: GotRecording, options: ReplayOptions = {}): Promise<ReplayReport<SortState> | ReplayReport<CountState>> {
  if (/sort/i.test(recording.title)) return replaySorting(recording, options);
  if (/keyword/i.test(recording.title)) return replayKeywordCounting(recording, options);
  throw new Error(`no replay for "${recording.title}": the sorting and keyword-counting recordings are supported`);
}

