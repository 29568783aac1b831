/**
 * Replays a recorded Tree-of-Thoughts Game of 24 run (the reference implementation's BFS log
 * format) through this library's Explorer: a generator that returns, for each parent state, the
 * children the log recorded, and an evaluator that returns the values the log recorded.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { callModel, type LanguageModel, type RoleCallOptions, type ThoughtEvaluator, type ThoughtGenerator, type ThoughtNode, type ThoughtTree } from '@tot/core';

const stepSchema = z.object({
  step: z.number().int().nonnegative(),
  x: z.string(),
  ys: z.array(z.string()),
  new_ys: z.array(z.string()),
  values: z.array(z.number()),
  select_new_ys: z.array(z.string()),
});
const logSchema = z.array(z.object({ idx: z.number().int(), steps: z.array(stepSchema).min(1) }).loose());

/** One puzzle of a log. */
export type ReplayPuzzle = z.infer<typeof logSchema>[number];
export type ReplayStep = z.infer<typeof stepSchema>;

/** Reads and validates a log file (the reference code's `*_start*_end*.json`, or the compact fixture, which has the same format). */
export function loadReplayLog(path: string): ReplayPuzzle[] {
  const parsed = logSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path} is not a Tree-of-Thoughts BFS log: ${z.prettifyError(parsed.error)}`);
  for (const puzzle of parsed.data) {
    for (const step of puzzle.steps) {
      if (step.values.length !== step.new_ys.length) throw new Error(`puzzle ${puzzle.idx} step ${step.step}: ${step.values.length} values for ${step.new_ys.length} states`);
    }
  }
  return parsed.data;
}

// A node's state is its parent's plus its own line: kept per tree, so each is built once.
const states = new WeakMap<ThoughtTree, Map<string, string>>();

/** The log's state string of a node: every step from the root down to it, each ending with a newline. */
export function stateOf(tree: ThoughtTree, node: ThoughtNode): string {
  let known = states.get(tree);
  if (!known) states.set(tree, (known = new Map()));
  let state = known.get(node.id);
  if (state === undefined) {
    state = node.parentId === null ? '' : `${stateOf(tree, tree.node(node.parentId))}${node.content}\n`;
    known.set(node.id, state);
  }
  return state;
}

/**
 * The children of each parent state at one step, in log order. `new_ys` concatenates each parent's
 * proposals in parent order; a parent that was selected twice has two runs of children.
 */
function segments(step: ReplayStep): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  let j = 0;
  for (const parent of step.ys) {
    const run: string[] = [];
    while (j < step.new_ys.length && step.new_ys[j]!.startsWith(parent)) run.push(step.new_ys[j++]!);
    const runs = out.get(parent) ?? [];
    runs.push(run);
    out.set(parent, runs);
  }
  if (j !== step.new_ys.length) throw new Error(`step ${step.step} of "${step.x}": ${step.new_ys.length - j} children match no parent`);
  return out;
}

/** Options of the replay roles. */
export interface ReplayRoleOptions {
  /**
   * A model to call once per role call (through the run, as every role's model), its output
   * ignored: with `withLatency` it gives the replay a real model call's latency and concurrency.
   */
  transport?: LanguageModel;
}

async function callTransport(transport: LanguageModel | undefined, content: string, tags: Record<string, string>, options: RoleCallOptions = {}): Promise<void> {
  if (!transport) return;
  const model = options.runModel ? options.runModel(transport) : transport;
  await callModel(model, { messages: [{ role: 'user', content: content || '(start)' }], tags }, options.signal ? { signal: options.signal } : {});
}

/** A generator that returns the logged children of each parent state, in logged order. */
export function replayGenerator(puzzle: ReplayPuzzle, options: ReplayRoleOptions = {}): ThoughtGenerator {
  const bySteps = puzzle.steps.map(segments);
  return {
    async generate({ tree, parent }, callOptions) {
      const state = stateOf(tree, parent);
      // Taken before any await, so that a parent selected twice gets its runs in frontier order.
      const run = bySteps[parent.depth]?.get(state)?.shift() ?? [];
      if (options.transport) await callTransport(options.transport, state, { role: 'generator', depth: String(parent.depth + 1) }, callOptions);
      return run.map((y) => ({ content: y.slice(state.length, -1) }));
    },
  };
}

/** Log values run 0–60 (three samples of sure = 20, likely = 1, impossible = 0.001); scores run 0–10. */
export const valueToScore = (value: number) => value / 6;

/** An evaluator that returns the logged value of each candidate state (per occurrence, for repeated states). */
export function replayEvaluator(puzzle: ReplayPuzzle, options: ReplayRoleOptions = {}): ThoughtEvaluator {
  // Per step, where each state occurs in new_ys (a state may occur more than once), and how many
  // of its occurrences have been evaluated so far.
  const positions = puzzle.steps.map((step) => {
    const byState = new Map<string, number[]>();
    step.new_ys.forEach((y, j) => (byState.get(y) ?? byState.set(y, []).get(y)!).push(j));
    return byState;
  });
  const seen = puzzle.steps.map(() => new Map<string, number>());
  return {
    async evaluate({ tree, candidates }, callOptions) {
      const evaluations = candidates.map((node) => {
        const step = puzzle.steps[node.depth - 1];
        const state = stateOf(tree, node);
        const occurrences = seen[node.depth - 1]!;
        const occurrence = occurrences.get(state) ?? 0;
        occurrences.set(state, occurrence + 1);
        const index = positions[node.depth - 1]?.get(state)?.[occurrence] ?? -1;
        const value = index === -1 ? 0 : step!.values[index]!;
        return { nodeId: node.id, score: valueToScore(value), confidence: 1, reasoning: index === -1 ? 'not in the log' : `logged value ${value}` };
      });
      // One model call per candidate, as the reference makes one value request per state.
      if (options.transport) await Promise.all(candidates.map((node) => callTransport(options.transport, stateOf(tree, node), { role: 'evaluator', depth: String(node.depth) }, callOptions)));
      return { evaluations, ranking: [], pruningSuggestions: [] };
    },
  };
}

/**
 * A Game of 24 state key: the remaining numbers, sorted, for an equation step ("left: 4 6"), so
 * that two paths reaching the same numbers count as one state; the whole state otherwise.
 */
export function game24StateKey(node: ThoughtNode, tree: ThoughtTree): string {
  const left = /left: ([^)]*)\)/.exec(node.content)?.[1];
  return left === undefined ? `path:${stateOf(tree, node)}` : `left:${left.trim().split(/\s+/).sort().join(' ')}`;
}
