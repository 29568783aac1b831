import { TotError } from '../errors/index.js';
import type { EventStore, StoredEvent } from '../events/store/types.js';
import { readRecordedRun } from '../run/recorded-run.js';
import { runEventOf, type RunEventBase } from '../run/run-event.js';
import { eventShapeCheck } from '../run/run-log-check.js';
import { fractalEventShapes, type FractalEvent } from './fractal-events.js';
import type { Frame } from './types.js';

/**
 * The frames of a {@link FractalSolver} run, with exports to JSON and Mermaid.
 *
 * @example
 * ```ts
 * const { root } = await solver.run('Write an essay');
 * root.get('f0')?.done; // the root's archived results
 * console.log(root.toMermaid());
 * ```
 */
export class FrameTree {
  private readonly frames = new Map<string, Frame>();

  /**
   * Adds a frame (the solver does this).
   *
   * @example
   * ```ts
   * import { FrameTree } from '@tot/core/fractal';
   *
   * new FrameTree().add({ id: 'f0', goal: 'g', parentId: null, todo: '', done: [], depth: 0, status: 'open', toolCalls: [] });
   * ```
   */
  add(frame: Frame): void {
    this.frames.set(frame.id, frame);
  }

  /**
   * The frame with `id`.
   *
   * @example
   * ```ts
   * root.get('f1')?.goal;
   * ```
   */
  get(id: string): Frame | undefined {
    return this.frames.get(id);
  }

  /**
   * Every frame, in creation order.
   *
   * @example
   * ```ts
   * for (const frame of root.all()) console.log(frame.depth, frame.goal);
   * ```
   */
  all(): Frame[] {
    return [...this.frames.values()];
  }

  /**
   * The children of a frame, in call order.
   *
   * @example
   * ```ts
   * root.children('f0').map((f) => f.goal);
   * ```
   */
  children(id: string): Frame[] {
    return this.all().filter((f) => f.parentId === id);
  }

  /**
   * The ancestors of a frame, root first.
   *
   * @example
   * ```ts
   * root.ancestors('f3').map((f) => f.id); // ['f0', 'f1']
   * ```
   */
  ancestors(id: string): Frame[] {
    const out: Frame[] = [];
    let frame = this.frames.get(id);
    while (frame?.parentId) {
      frame = this.frames.get(frame.parentId);
      if (frame) out.unshift(frame);
    }
    return out;
  }

  /**
   * Every frame as JSON (copies).
   *
   * @example
   * ```ts
   * JSON.stringify(root);
   * ```
   */
  toJSON(): { frames: Frame[] } {
    return { frames: structuredClone(this.all()) };
  }

  /**
   * A Mermaid flowchart: goals, statuses and each frame's archived result count.
   *
   * @example
   * ```ts
   * console.log(root.toMermaid());
   * ```
   */
  toMermaid(maxLabelLength = 50): string {
    const label = (f: Frame) => {
      const goal = f.goal.replace(/\s+/g, ' ');
      const cut = goal.length > maxLabelLength ? `${goal.slice(0, maxLabelLength - 1)}…` : goal;
      return `${cut} [${f.status}${f.done.length ? `, ${f.done.length} done` : ''}]`.replace(/"/g, '#quot;');
    };
    const lines = ['graph TD'];
    for (const f of this.all()) lines.push(`  ${f.id}["${label(f)}"]`);
    for (const f of this.all()) if (f.parentId) lines.push(`  ${f.parentId} --> ${f.id}`);
    return lines.join('\n');
  }
}

const checkEvent = eventShapeCheck(fractalEventShapes);

/**
 * Folds a FractalSolver run's events back into its frames: goals, plans, every archived result
 * (failures included), tool calls, statuses and forced returns — the run's audit trail. An
 * event of the wrong shape, or one naming a frame before its creation, is `INVALID_FORMAT` with
 * the event's position.
 *
 * @example
 * ```ts
 * import { foldFractalEvents } from '@tot/core/fractal';
 *
 * const tree = foldFractalEvents(events);
 * tree.get('f0')?.done;
 * ```
 */
export function foldFractalEvents(events: Iterable<RunEventBase | StoredEvent>): FrameTree {
  const tree = new FrameTree();
  const frame = (id: string) => {
    const f = tree.get(id);
    if (!f) throw new TotError('INVALID_FORMAT', `Fractal log names frame "${id}" before creating it.`, { details: { frameId: id } });
    return f;
  };
  let position = 0;
  for (const raw of events) {
    const e = runEventOf(raw) as FractalEvent;
    checkEvent(e, position++, 'The fractal log');
    switch (e.type) {
      case 'frame.created':
        tree.add({ id: e.frameId, goal: e.goal, parentId: e.parentId, todo: '', done: [], depth: e.depth, status: 'open', toolCalls: [] });
        break;
      case 'frame.thought':
        if (e.output.type === 'TODO') frame(e.frameId).todo = e.output.description;
        break;
      case 'frame.tool':
        frame(e.frameId).toolCalls.push({ tool: e.tool, input: e.input, ...(e.error === undefined ? { output: e.output } : { error: e.error }) });
        break;
      case 'frame.returned': {
        const f = frame(e.frameId);
        f.status = 'returned';
        f.result = e.result;
        if (e.forced) f.forced = e.forced;
        // Only the root returns when the run stops; every other return is archived by its parent.
        if (f.parentId) frame(f.parentId).done.push(e.result);
        break;
      }
      case 'frame.failed': {
        const f = frame(e.frameId);
        f.status = 'failed';
        f.error = { ...e.error };
        if (f.parentId) frame(f.parentId).done.push(failedResult(e.error));
        break;
      }
      default:
        break;
    }
  }
  return tree;
}

/**
 * Reads a recorded FractalSolver run (`run(goal, { store, runId })`) back into its frames.
 *
 * @example
 * ```ts
 * import { replayFractalRun } from '@tot/core/fractal';
 *
 * const frames = await replayFractalRun(store, 'essay-1');
 * console.log(frames.toMermaid());
 * ```
 */
export async function replayFractalRun(store: EventStore, runId: string): Promise<FrameTree> {
  return foldFractalEvents((await readRecordedRun(store, runId)).events);
}

/** What a parent archives for a child that failed. */
export function failedResult(error: { code: string; message: string }): string {
  return `FAILED (${error.code}): ${error.message}`;
}
