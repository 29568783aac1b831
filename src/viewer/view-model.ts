/**
 * A node of a run as the viewer draws it.
 *
 * @example
 * ```ts
 * import type { ViewNode } from '@tot/core/viewer';
 *
 * const n: ViewNode = { id: 'node_1', label: '4 + 9 = 13', parents: ['root'], status: 'active', score: 0.8, content: '4 + 9 = 13 (left: 10 13 13)' };
 * ```
 */
export interface ViewNode {
  /** Unique in the run. */
  id: string;
  /** A short label (the first words of the content). */
  label: string;
  /** The nodes it follows (none for a root). */
  parents: string[];
  /** Drawn by status: `pruned` dashed, `solution` and `best` highlighted, `failed` red. */
  status: 'active' | 'pruned' | 'solution' | 'failed' | 'stale' | 'done';
  /** Its score, when it has one. */
  score?: number;
  /** Its whole content. */
  content: string;
  /** What it is (an operation, an agent, a role, a frame). */
  kind?: string;
  /** The prompt of the model call that made it, when known. */
  prompt?: string;
  /** The model's output behind it, when known. */
  output?: string;
  /** Other facts, shown in its details. */
  details?: Record<string, string>;
}

/**
 * A model call on the timeline.
 *
 * @example
 * ```ts
 * import type { ViewCall } from '@tot/core/viewer';
 *
 * const c: ViewCall = { id: 'call_1', start: 0, end: 840, lane: 0, outcome: 'completed', inputTokens: 120, outputTokens: 40, tag: 'generator' };
 * ```
 */
export interface ViewCall {
  /** The call's id. */
  id: string;
  /** Milliseconds from the run's start. */
  start: number;
  /** Milliseconds from the run's start (the run's end for a call still open). */
  end: number;
  /** Its lane: calls in flight at once get different lanes. */
  lane: number;
  /** How it ended. */
  outcome: 'completed' | 'failed' | 'open';
  /** Tokens it was charged. */
  inputTokens: number;
  /** Tokens it was charged. */
  outputTokens: number;
  /** A tag naming its purpose (role, operation, agent). */
  tag?: string;
}

/**
 * A per-run-type panel.
 *
 * @example
 * ```ts
 * import type { ViewPanel } from '@tot/core/viewer';
 *
 * const p: ViewPanel = { kind: 'consensus', trend: [0.62, 0.81, 0.93], heatmaps: [] };
 * ```
 */
export type ViewPanel =
  | { kind: 'consensus'; trend: number[]; heatmaps: { round: number; labels: string[]; matrix: number[][] }[] }
  | { kind: 'branches'; branches: { id: string; name: string; state: string; reward?: number }[]; auditBar: string }
  | { kind: 'plan'; versions: { thought: number; steps: { description: string; status: string; depth: number }[] }[] }
  | { kind: 'text'; title: string; text: string };

/**
 * Everything the viewer shows of a run, whatever ran it.
 *
 * @example
 * ```ts
 * import { viewRun } from '@tot/core/viewer';
 *
 * const view = viewRun(events);
 * console.log(view.kind, view.nodes.length, view.bestPath);
 * ```
 */
export interface RunView {
  /** Which runner made the run. */
  kind: 'search' | 'graph' | 'fractal' | 'chain-of-thought' | 'deliberation' | 'got-session' | 'solve' | 'unknown';
  /** The run's id. */
  runId: string;
  /** What it worked on. */
  problem: string;
  /** Why it stopped (absent for a run that did not finish). */
  stopReason?: string;
  /** Headline figures (calls, tokens, time, …). */
  summary: Record<string, string | number>;
  /** The nodes, parents before children. */
  nodes: ViewNode[];
  /** The best path (or the winning branch), root first. */
  bestPath: string[];
  /** The model calls. */
  calls: ViewCall[];
  /** Cumulative tokens over time. */
  tokens: { at: number; total: number }[];
  /** The token budget, when the run had one. */
  tokenBudget?: number;
  /** Run-type panels. */
  panels: ViewPanel[];
}
