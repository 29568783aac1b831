/**
 * A node of a run as the viewer draws it.
 *
 * @example
 * ```ts
 * import type { ViewNode } from '@tot/core/viewer';
 *
 * const n: ViewNode = { id: 'node_1', label: '4 + 9 = 13', parents: ['root'], status: 'active', score: 0.8, content: '4 + 9 = 13 (left: 10 13 13)', madeBy: [0], judgedBy: [3] };
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
  /**
   * The prompt behind it, as text, when the run recorded it with the node rather than as a model
   * call (a deliberation agent's turn when its call is not in the log). Model calls are in
   * {@link ViewNode.madeBy} instead.
   */
  prompt?: string;
  /** The model's reply behind it, as text, when the run recorded it with the node (see `prompt`). */
  output?: string;
  /**
   * The model calls that made it (indices into {@link RunView.calls}, in order: samples and
   * repairs of one request are several calls): a search node's generation, a graph thought's
   * operation call, a frame's think and eval calls, a thought's call, an agent's turn.
   */
  madeBy?: number[];
  /** Which output of its one `madeBy` call it is, when that call answered with several (`n > 1`). */
  pick?: number;
  /** The model calls that scored it, when separate from those that made it (a search's evaluator, a graph's model score). */
  judgedBy?: number[];
  /**
   * The node whose content it carries over unchanged, when it has no model call of its own (a
   * graph thought that a local score, keep-best or check passed on): that node's calls made it.
   */
  from?: string;
  /** Why no model call is shown: a node no model made (a problem, a hand-written thought), or a log that does not say which call. */
  noCall?: string;
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
 * const c: ViewCall = { id: 'c1', start: 0, end: 840, lane: 0, outcome: 'completed', inputTokens: 120, outputTokens: 40, tag: 'generator', messages: [{ role: 'user', text: 0 }], outputs: [1] };
 * ```
 */
export interface ViewCall {
  /** The call's id. */
  id: string;
  /** Milliseconds from the run's start. */
  start: number;
  /**
   * Milliseconds from the run's start. A call never answered ends where it was cut off: at the
   * crash (the log's last event before the run resumed), or at the log's end.
   */
  end: number;
  /** Its lane: calls in flight at once get different lanes (the number of lanes is the most calls in flight at once). */
  lane: number;
  /** How it ended. */
  outcome: 'completed' | 'failed' | 'open';
  /** Tokens it was charged. */
  inputTokens: number;
  /** Tokens it was charged. */
  outputTokens: number;
  /** A tag naming its purpose (role, operation, agent). */
  tag?: string;
  /** The messages it sent, each as its role and its text (an index into {@link RunView.texts}). */
  messages?: { role: string; text: number }[];
  /** Its outputs (indices into {@link RunView.texts}), when it completed. */
  outputs?: number[];
  /** Why it failed, when it did. */
  error?: string;
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
  | { kind: 'text'; title: string; text: string }
  /** The questions the run asked a person; `waiting` when the run waits for answers to those still pending. */
  | { kind: 'questions'; waiting: boolean; questions: ViewQuestion[] };

/**
 * A question the run asked a person, as the viewer shows it: its words, where it was asked, the
 * preview it came with and the answer it got (as JSON text), or no answer while it is pending.
 *
 * @example
 * ```ts
 * import type { ViewQuestion } from '@tot/core/viewer';
 *
 * const q: ViewQuestion = { id: 'strategy/pick-one#pick', key: 'pick', question: 'Which thought should the search follow?', where: 'strategy (name: pick-one)', preview: '[\n  "step 68"\n]', answer: '0', by: 'resume' };
 * ```
 */
export interface ViewQuestion {
  /** The question's id: answer it by this id when resuming. */
  id: string;
  key: string;
  /** The question, in words. */
  question: string;
  /** Where in the run it was asked (`strategy (name: pick-one)`), when the runner said. */
  where?: string;
  /** The preview it was asked with (a plan, a diff), as indented JSON. */
  preview?: string;
  /** The JSON Schema an answer must fit, as indented JSON. */
  schema?: string;
  /** The answer, as JSON; absent while the question is pending. */
  answer?: string;
  /** Who answered: `handler` (the run's onAsk) or `resume` (the answers given to a resume). */
  by?: string;
}

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
  /**
   * Why it stopped: the stop reason of the log's last event, when that is `run.finished` (absent
   * for a run under way or interrupted). `waiting` for a run waiting for answers: see `waiting`.
   */
  stopReason?: string;
  /**
   * The ids of the questions a run waiting for answers waits for (its last event a `run.finished`
   * with stop reason `waiting`): it is neither finished nor crashed, and a resume given the answers
   * goes on. Absent for any other run.
   */
  waiting?: string[];
  /** Headline figures (calls, tokens, time, …). */
  summary: Record<string, string | number>;
  /** The nodes, parents before children. */
  nodes: ViewNode[];
  /**
   * The best path, root first: a search's best path, an operation graph's chain from the input to
   * its last output, a chain of thought's thoughts, a deliberation's decisions and report, an agent
   * session's winning branch; for a fractal run, the frames the final answer was built from (the
   * root and, below each of them, the sub-goals whose results it kept), parents before children.
   */
  bestPath: string[];
  /** The model calls, in the order they were made. */
  calls: ViewCall[];
  /**
   * Every distinct text of the calls (prompts' messages and outputs), once each: calls refer to
   * them by index, so that a prompt sent a thousand times is stored once.
   */
  texts: string[];
  /** Cumulative tokens over time. */
  tokens: { at: number; total: number }[];
  /**
   * Milliseconds from the run's first event to its last, the time between a crash and its resume
   * included: the span of the timeline, and the summary's wall time.
   */
  duration: number;
  /** Each crash the run was resumed after: when its log stopped and when it resumed, in ms from the start. */
  interruptions: { crashedAt: number; resumedAt: number }[];
  /** The token budget, when the run had one. */
  tokenBudget?: number;
  /** Run-type panels. */
  panels: ViewPanel[];
}
