// A FractalSolver run as the viewer shows it: its frames, each with the think and eval calls it
// made, and as the best path the frames the final answer was built from.
import { foldFractalEvents } from '../fractal/frame-tree.js';
import type { Frame } from '../fractal/types.js';
import type { RunEventBase } from '../run/run-event.js';
import type { CallLog } from './view-calls.js';
import type { RunView, ViewNode } from './view-model.js';
import { label, str, type AnyEvent } from './view-util.js';

const normalise = (goal: string) => goal.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * The frames the final answer was built from, parents before children: the root (whose result is
 * the answer), and under each such frame the sub-goals that returned a result it kept — every
 * child that returned, except one whose sub-goal was called again later (the later result is the
 * one that counts). Failed frames, frames still open, and everything below them are off it.
 */
export function answerFrames(frames: readonly Frame[]): string[] {
  const root = frames.find((f) => f.parentId === null);
  if (!root) return [];
  const children = new Map<string, Frame[]>();
  for (const f of frames) {
    if (f.parentId === null) continue;
    const list = children.get(f.parentId);
    if (list) list.push(f);
    else children.set(f.parentId, [f]);
  }
  const out: string[] = [];
  const visit = (f: Frame) => {
    out.push(f.id);
    const kids = children.get(f.id) ?? [];
    const lastOfGoal = new Map<string, string>();
    for (const k of kids) if (k.status === 'returned') lastOfGoal.set(normalise(k.goal), k.id);
    for (const k of kids) if (k.status === 'returned' && lastOfGoal.get(normalise(k.goal)) === k.id) visit(k);
  };
  visit(root);
  return out;
}

/** A fractal run's frames, best path (the answer's frames) and each frame's calls. */
export function fractalView(events: AnyEvent[], log: CallLog, stopReason: string | undefined): Pick<RunView, 'nodes' | 'bestPath'> {
  const frames = foldFractalEvents(events as unknown as RunEventBase[]).all();
  // The run is one recursion: the calls since the last frame event are the operator's whose
  // outcome comes next (think's before frame.thought, eval's before frame.evaluated, and a
  // failing operator's before frame.failed).
  const calls = new Map<string, number[]>();
  let pending: number[] = [];
  for (const e of events) {
    if (e.type === 'llm.requested') {
      const i = log.index.get(str(e.callId));
      if (i !== undefined) pending.push(i);
    } else if (e.type === 'frame.thought' || e.type === 'frame.evaluated' || e.type === 'frame.failed') {
      if (pending.length === 0) continue;
      const id = str(e.frameId);
      const list = calls.get(id);
      if (list) list.push(...pending);
      else calls.set(id, pending);
      pending = [];
    }
  }
  const root = frames.find((f) => f.parentId === null);
  const nodes: ViewNode[] = frames.map((f) => {
    const made = calls.get(f.id);
    return {
      id: f.id,
      label: label(f.goal),
      parents: f.parentId === null ? [] : [f.parentId],
      status: f.status === 'failed' ? 'failed' : f.status === 'returned' ? (f === root && stopReason === 'completed' ? 'solution' : 'done') : 'active',
      content: [`Goal: ${f.goal}`, f.todo ? `Plan: ${f.todo}` : '', f.done.length ? `Results of its sub-goals:\n${f.done.map((d, i) => `${i + 1}. ${d}`).join('\n')}` : '', f.result !== undefined ? `Result: ${f.result}` : '', f.error ? `Failed: ${f.error.code}: ${f.error.message}` : ''].filter(Boolean).join('\n\n'),
      kind: 'frame',
      ...(made ? { madeBy: made } : { noCall: f.status === 'open' ? 'No model call of its own was recorded (the run stopped first).' : 'Its think and eval are functions: no model call.' }),
      details: {
        depth: String(f.depth),
        ...(f.forced ? { forced: f.forced.kind } : {}),
        ...(f.toolCalls.length ? { tools: f.toolCalls.map((t) => `${t.tool}${t.error ? ' (failed)' : ''}`).join(', ') } : {}),
      },
    };
  });
  return { nodes, bestPath: answerFrames(frames) };
}
