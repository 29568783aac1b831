// A ChainOfThoughtNode run as the viewer shows it: its thoughts in a chain, each with the model
// call (and its repairs) that produced it, the plan as it stood after each thought, the solution.
import { foldChainOfThoughtEvents } from '../cot/chain-of-thought-node.js';
import type { PlanStep } from '../cot/plan.js';
import type { CallLog } from './view-calls.js';
import type { RunView, ViewNode, ViewPanel } from './view-model.js';
import { runEnd } from './view-questions.js';
import { label, str, type AnyEvent } from './view-util.js';

function flatten(steps: readonly PlanStep[], depth = 0): { description: string; status: string; depth: number }[] {
  return steps.flatMap((s) => [{ description: s.description, status: s.status, depth }, ...flatten(s.subSteps ?? [], depth + 1)]);
}

/** A chain of thought's thoughts (and a thought that failed), its plan panel and its calls per thought. */
export function chainView(events: AnyEvent[], log: CallLog): Pick<RunView, 'nodes' | 'bestPath' | 'panels'> {
  const { thoughts, solution } = foldChainOfThoughtEvents(events);
  // One thought at a time: the calls since the last thought are the next thought's.
  const made: number[][] = [];
  let pending: number[] = [];
  for (const e of events) {
    if (e.type === 'llm.requested') {
      const i = log.index.get(str(e.callId));
      if (i !== undefined) pending.push(i);
    } else if (e.type === 'thought.completed') {
      made.push(pending);
      pending = [];
    }
  }
  const nodes: ViewNode[] = thoughts.map((t, i) => ({
    id: `thought-${t.thoughtNumber}`,
    label: label(`${t.thoughtNumber}. ${t.currentThinking}`),
    parents: i === 0 ? [] : [`thought-${thoughts[i - 1]!.thoughtNumber}`],
    status: !t.nextThoughtNeeded && solution !== null ? 'solution' : 'active',
    content: t.currentThinking,
    kind: 'thought',
    ...(made[i]?.length ? { madeBy: made[i] } : { noCall: 'No model call was recorded for this thought.' }),
    details: { 'next thought needed': String(t.nextThoughtNeeded), 'plan steps': String(flatten(t.planning).length) },
  }));
  const bestPath = nodes.map((n) => n.id);
  // A thought that could not be had (its reply stayed invalid, its call failed) ended the run: shown failed, with its calls.
  const { finished } = runEnd(events, (e) => e.stopReason);
  const failure = ((finished?.errors ?? []) as { code: string; message: string; where?: { kind?: string; thoughtNumber?: number } }[]).find((e) => e.where?.kind === 'thought');
  if (failure) {
    const n = failure.where!.thoughtNumber ?? thoughts.length + 1;
    nodes.push({
      id: `thought-${n}`,
      label: label(`${n}. (failed) ${failure.message}`),
      parents: nodes.length ? [nodes.at(-1)!.id] : [],
      status: 'failed',
      content: `${failure.code}: ${failure.message}`,
      kind: 'thought',
      ...(pending.length ? { madeBy: pending } : { noCall: 'No model call was recorded for this thought.' }),
    });
  }
  const panels: ViewPanel[] = [{ kind: 'plan', versions: thoughts.map((t) => ({ thought: t.thoughtNumber, steps: flatten(t.planning) })) }];
  if (solution !== null) panels.push({ kind: 'text', title: 'Solution', text: solution });
  return { nodes, bestPath, panels };
}
