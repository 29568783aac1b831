import type { Frame } from './types.js';

/**
 * The frames of a {@link FractalSolver} run, with exports to JSON and Mermaid.
 *
 * @example
 * ```ts
 * const { root } = await solver.solve('Write an essay');
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
   * import { FrameTree } from '@tot/core';
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
