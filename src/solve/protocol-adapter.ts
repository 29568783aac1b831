import { z } from 'zod';
import { Budget, BudgetTemplate } from '../budget/budget.js';
import { TOT_ERROR_CODES, TotError, type TotErrorCode } from '../errors/index.js';
import { raceAbort, throwIfAborted } from '../internal/abort.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import type { LanguageModel } from '../model/types.js';
import { withBudget } from '../model/with-budget.js';
import { budgetForRun } from '../run/run-options.js';
import type { ProtocolMessage, ProtocolMessageType, ProtocolPayload } from '../protocol/messages.js';
import { parseProtocolMessage } from '../protocol/parse-message.js';
import type { ProtocolThoughtNode } from '../protocol/thought-node.js';
import { createDecomposer } from '../roles/create-decomposer.js';
import { createEvaluator } from '../roles/create-evaluator.js';
import { createGenerator } from '../roles/create-generator.js';
import { createSynthesizer } from '../roles/create-synthesizer.js';
import { taskPreset } from '../roles/task-presets.js';
import type { RoleCallOptions, ThoughtEvaluator, ThoughtGenerator } from '../roles/types.js';
import { bestFirst } from '../search/strategies/best-first.js';
import { bfs } from '../search/strategies/bfs.js';
import { dfs } from '../search/strategies/dfs.js';
import { mcts } from '../search/strategies/mcts.js';
import type { SearchStrategy } from '../search/types.js';
import { nodeFromProtocol, nodeToProtocol } from '../tree/protocol-codec.js';
import { ThoughtTree } from '../tree/thought-tree.js';
import { solve, solveOptionsObject, type SolveOptions } from './solve.js';

/**
 * Options of {@link createProtocolHandler}: the roles (or a `model` for LLM-backed defaults) and
 * explorer settings that `initialize_search` does not carry.
 *
 * @example
 * ```ts
 * import type { ProtocolHandlerOptions } from '@tot/core';
 *
 * const options: ProtocolHandlerOptions = { model, concurrency: 8 };
 * ```
 */
export type ProtocolHandlerOptions = Omit<SolveOptions, 'problem' | 'taskType' | 'maxDepth' | 'branchingFactor' | 'pruningThreshold' | 'strategy' | 'signal'>;

/**
 * A Tree-of-Thoughts protocol endpoint, as returned by {@link createProtocolHandler}.
 *
 * @example
 * ```ts
 * import { createProtocolHandler } from '@tot/core';
 *
 * const handler = createProtocolHandler({ model });
 * const reply = await handler.handle(JSON.parse(body));
 * ```
 */
export interface ProtocolHandler {
  /**
   * Answers one message: `decompose_task` → `decomposition_result`, `initialize_search` →
   * `search_complete`, `synthesize_solution` → `final_solution`, `generate_thoughts` →
   * `generated_thoughts`, `evaluate_thoughts` → `evaluation_results`. A role failure is answered
   * with the reply type, an empty payload and the protocol's `error` object; a message that is not
   * valid protocol throws `INVALID_FORMAT`; an abort throws `ABORTED`.
   */
  handle(message: unknown, options?: { signal?: AbortSignal }): Promise<ProtocolMessage>;
}

const REPLY = {
  decompose_task: ['decomposer', 'decomposition_result'],
  initialize_search: ['explorer', 'search_complete'],
  synthesize_solution: ['synthesizer', 'final_solution'],
  generate_thoughts: ['generator', 'generated_thoughts'],
  evaluate_thoughts: ['evaluator', 'evaluation_results'],
} as const;

type Request = keyof typeof REPLY;

const handlerOptionsSchema = solveOptionsObject.omit({ problem: true, taskType: true, maxDepth: true, branchingFactor: true, pruningThreshold: true, strategy: true, signal: true });
const handleOptionsSchema = z.strictObject({ signal: signalSchema });

const STRATEGIES: Record<string, () => SearchStrategy> = {
  BFS: () => bfs({ beamWidth: 5 }),
  DFS: () => dfs(),
  BEST_FIRST: () => bestFirst(),
  MCTS: () => mcts(),
};

function emptyPayload(type: ProtocolMessageType, problem: string, taskType: string): unknown {
  switch (type) {
    case 'decomposition_result':
      return { thought_granularity: '', intermediate_steps: [], depth_estimate: 0, constraints: [], success_criteria: '' };
    case 'search_complete':
      return { best_path: [], tree: new ThoughtTree({ problem, taskType }).toProtocol(), stats: { total_nodes: 0, total_backtracks: 0, llm_calls: 0 } };
    case 'final_solution':
      return { answer: '', reasoning_trace: [], confidence: 0, verification: { is_valid: false } };
    case 'generated_thoughts':
      return { candidates: [] };
    default:
      return { evaluations: [], ranking: [], pruning_suggestions: [] };
  }
}

/** A tree holding the problem and, under it, the given nodes (so prompts show their content as the path). */
function treeWith(problem: string, taskType: string, taskId: string, nodes: ProtocolThoughtNode[]) {
  const tree = new ThoughtTree({ problem, taskType, taskId });
  const added = nodes.map((n) => {
    const node = nodeFromProtocol(n);
    return tree.addChild(tree.rootId, {
      content: node.content,
      ...(node.actionType === undefined ? {} : { actionType: node.actionType }),
      metadata: { ...node.metadata, protocolId: node.id },
    });
  });
  return { tree, added };
}

/**
 * Serves the Tree-of-Thoughts agent protocol's JSON messages with this library: a host that speaks the protocol (an
 * orchestrator, or an explorer that wants remote generation and evaluation) drives the roles,
 * the explorer and the synthesizer through it.
 *
 * @example
 * ```ts
 * import { createProtocolHandler } from '@tot/core';
 *
 * const handler = createProtocolHandler({ model, verify: checkGame24 });
 * const reply = await handler.handle({
 *   from: 'orchestrator', to: 'explorer', task_id: 'g24', type: 'initialize_search',
 *   payload: { problem: '4 9 10 13', task_type: 'math_reasoning',
 *     search_config: { strategy: 'BFS', max_depth: 3, branching_factor: 5, pruning_threshold: 3 }, decomposition_result: {} },
 * });
 * // reply.type === 'search_complete'
 * ```
 */
export function createProtocolHandler(options: ProtocolHandlerOptions): ProtocolHandler {
  if (typeof options !== 'object' || options === null) throw new TotError('INVALID_ARGUMENT', 'createProtocolHandler: options: expected an object', { details: { field: 'options' } });
  parseOptions(handlerOptionsSchema, options, 'createProtocolHandler');
  const { model } = options;
  return {
    async handle(input, handleOptions = {}) {
      parseOptions(handleOptionsSchema, handleOptions, 'ProtocolHandler.handle');
      const message = parseProtocolMessage(input);
      if (!(message.type in REPLY)) {
        throw new TotError('INVALID_FORMAT', `createProtocolHandler: "${message.type}" is a reply, not a request this handler answers`, { details: { type: message.type } });
      }
      const [from, type] = REPLY[message.type as Request];
      const signal = handleOptions.signal;
      // A single role call is no run: its model is admitted by the budget directly.
      const budget = options.budget === undefined ? undefined : budgetForRun(options.budget instanceof Budget || options.budget instanceof BudgetTemplate ? options.budget : new BudgetTemplate(options.budget));
      const callOptions: RoleCallOptions = { ...(signal ? { signal } : {}), ...(budget ? { runModel: (m: LanguageModel) => withBudget(m, { budget }) } : {}) };
      const reply = (payload: unknown, error?: TotError): ProtocolMessage =>
        parseProtocolMessage({ from, to: message.from, task_id: message.task_id, type, payload, ...(error ? { error: error.toProtocolError() } : {}) });
      const problemOf = () => ('problem' in message.payload ? message.payload.problem : 'context' in message.payload ? message.payload.context.problem : '');
      try {
        return reply(await answer(message as Extract<ProtocolMessage, { type: Request }>, options, callOptions, signal));
      } catch (error) {
        if (TotError.hasCode(error, 'ABORTED')) throw error;
        const typed = TotError.isInstance(error) ? error : new TotError('GENERATION_FAILED', String(error), { cause: error });
        const taskType = 'task_type' in message.payload ? message.payload.task_type : 'general';
        return reply(emptyPayload(type, problemOf(), taskType), typed);
      }
    },
  };

  async function answer(message: Extract<ProtocolMessage, { type: Request }>, o: ProtocolHandlerOptions, callOptions: RoleCallOptions, signal?: AbortSignal): Promise<unknown> {
    switch (message.type) {
      case 'decompose_task': {
        const { problem, task_type } = message.payload;
        const decomposer = o.decomposer ?? (model ? createDecomposer({ model }) : undefined);
        const preset = taskPreset(task_type);
        const d = decomposer
          ? await decomposer.decompose({ problem, taskType: task_type }, callOptions)
          : { thoughtGranularity: preset?.granularity ?? 'step', intermediateSteps: [], depthEstimate: preset?.depth?.[1] ?? 3, constraints: [], successCriteria: 'solve the problem' };
        return { thought_granularity: d.thoughtGranularity, intermediate_steps: d.intermediateSteps, depth_estimate: d.depthEstimate, constraints: d.constraints, success_criteria: d.successCriteria };
      }
      case 'initialize_search': {
        const p = message.payload;
        const c = p.search_config;
        const d = 'thought_granularity' in p.decomposition_result ? p.decomposition_result : undefined;
        const strategy = STRATEGIES[c.strategy.toUpperCase()]?.();
        if (!strategy) throw new TotError('INVALID_FORMAT', `unknown search strategy "${c.strategy}" (known: ${Object.keys(STRATEGIES).join(', ')})`);
        const { decomposer: _d, synthesizer: _s, ...rest } = o;
        const decomposer = {
          decompose: async () => ({
            thoughtGranularity: d?.thought_granularity ?? taskPreset(p.task_type)?.granularity ?? 'step',
            intermediateSteps: d?.intermediate_steps ?? [],
            depthEstimate: c.max_depth,
            constraints: d?.constraints ?? [],
            successCriteria: d?.success_criteria ?? 'solve the problem',
          }),
        };
        const result = await solve({
          ...rest,
          problem: p.problem,
          taskType: p.task_type,
          taskId: message.task_id,
          decomposer,
          synthesizer: { synthesize: async () => ({ answer: '', reasoningTrace: [], confidence: 0, verification: { isValid: false } }) },
          strategy,
          maxDepth: c.max_depth,
          branchingFactor: c.branching_factor,
          pruningThreshold: c.pruning_threshold,
          ...(signal ? { signal } : {}),
        });
        const s = result.stats;
        return {
          best_path: result.bestPath.map(nodeToProtocol),
          tree: result.tree.toProtocol(),
          stats: {
            total_nodes: s.totalNodes,
            total_backtracks: s.totalBacktracks,
            llm_calls: s.llmCalls,
            input_tokens: s.inputTokens,
            output_tokens: s.outputTokens,
            stop_reason: result.stopReason,
          },
        };
      }
      case 'synthesize_solution': {
        const p = message.payload;
        const bestPath = p.best_path.map(nodeFromProtocol);
        const input = { bestPath, problem: p.problem, taskType: p.task_type };
        const synthesizer = o.synthesizer ?? (model ? createSynthesizer({ model, ...(o.verify ? { verify: o.verify } : {}) }) : undefined);
        if (!synthesizer) throw new TotError('INVALID_ARGUMENT', 'createProtocolHandler: synthesize_solution needs a synthesizer or a model', { details: { field: 'options.synthesizer' } });
        const s = await synthesizer.synthesize(input, callOptions);
        return {
          answer: s.answer,
          reasoning_trace: s.reasoningTrace,
          confidence: s.confidence,
          verification: { is_valid: s.verification.isValid, ...(s.verification.validationErrors ? { validation_errors: s.verification.validationErrors } : {}) },
          ...(s.alternativeSolutions ? { alternative_solutions: s.alternativeSolutions } : {}),
        };
      }
      case 'generate_thoughts': {
        const p = message.payload;
        const generator = o.generator ?? (model ? createGenerator({ model, strategy: p.generation_strategy }) : undefined);
        if (!generator) throw new TotError('INVALID_ARGUMENT', 'createProtocolHandler: generate_thoughts needs a generator or a model', { details: { field: 'options.generator' } });
        const { tree, added } = treeWith(p.context.problem, 'general', message.task_id, [p.parent_node]);
        const candidates = await generator.generate(
          { tree, parent: added[0]!, k: p.num_candidates, context: { problem: p.context.problem, taskType: 'general', goal: p.context.goal, constraints: p.context.constraints, maxDepth: p.parent_node.depth + 1 } },
          callOptions,
        );
        return {
          candidates: candidates.map((c, i) => ({ temp_id: `cand_${i + 1}`, content: c.content, ...(c.actionType ? { action_type: c.actionType } : {}), ...(c.metadata ? { metadata: c.metadata } : {}) })),
        };
      }
      case 'evaluate_thoughts': {
        const p = message.payload;
        const evaluator = o.evaluator ?? (model ? createEvaluator({ model, strategy: p.evaluation_strategy, criteria: p.evaluation_criteria.length > 0 ? p.evaluation_criteria : undefined }) : undefined);
        if (!evaluator) throw new TotError('INVALID_ARGUMENT', 'createProtocolHandler: evaluate_thoughts needs an evaluator or a model', { details: { field: 'options.evaluator' } });
        const { tree, added } = treeWith(p.context.problem, 'general', message.task_id, p.candidates);
        const batch = await evaluator.evaluate(
          { tree, candidates: added, context: { problem: p.context.problem, taskType: 'general', goal: p.context.goal, maxDepth: p.context.max_depth } },
          callOptions,
        );
        const original = new Map(added.map((n, i) => [n.id, p.candidates[i]!.id]));
        const id = (local: string) => original.get(local) ?? local;
        return {
          evaluations: batch.evaluations.map((e) => ({
            node_id: id(e.nodeId),
            score: e.score,
            confidence: e.confidence,
            reasoning: e.reasoning,
            ...(e.dimensionScores ? { dimension_scores: e.dimensionScores } : {}),
          })),
          ranking: batch.ranking.map(id),
          pruning_suggestions: batch.pruningSuggestions.map(id),
        };
      }
    }
  }
}

/**
 * Sends one protocol message to a remote peer and resolves with its reply.
 *
 * @example
 * ```ts
 * import type { ProtocolTransport } from '@tot/core';
 *
 * const send: ProtocolTransport = async (message, { signal }) =>
 *   (await fetch('http://generator.internal/tot', { method: 'POST', body: JSON.stringify(message), signal })).json();
 * ```
 */
export type ProtocolTransport = (message: ProtocolMessage, options: { signal?: AbortSignal }) => Promise<unknown>;

/**
 * Options of {@link protocolGenerator} and {@link protocolEvaluator}.
 *
 * @example
 * ```ts
 * import type { RemoteRoleOptions } from '@tot/core';
 *
 * const options: RemoteRoleOptions = { send: async (m) => peer.handle(m), taskId: 'g24' };
 * ```
 */
export interface RemoteRoleOptions {
  send: ProtocolTransport;
  /** Default `'task'`. */
  taskId?: string;
  /** Generation or evaluation strategy named in the message. */
  strategy?: string;
  /** Evaluation criteria named in evaluate_thoughts. Default `[]`. */
  criteria?: string[];
}

const remoteSchema = z.strictObject({
  send: fnSchema<ProtocolTransport>(),
  taskId: z.string().min(1).default('task'),
  strategy: z.string().optional(),
  criteria: z.array(z.string()).default([]),
});

function replyError(reply: ProtocolMessage, role: string): TotError | undefined {
  if (!reply.error) return undefined;
  const code: TotErrorCode = reply.error.code in TOT_ERROR_CODES ? (reply.error.code as TotErrorCode) : 'GENERATION_FAILED';
  return new TotError(code, `remote ${role}: ${reply.error.message}`, { recoverable: reply.error.recoverable, details: { remote: reply.error } });
}

async function exchange<T extends ProtocolMessageType>(send: ProtocolTransport, message: ProtocolMessage, expected: T, signal?: AbortSignal): Promise<Extract<ProtocolMessage, { type: T }>> {
  throwIfAborted(signal, `remote ${message.to}`);
  // A transport that ignores its signal must not hold the run: the exchange settles on abort.
  const reply = parseProtocolMessage(await raceAbort(Promise.resolve().then(() => send(message, signal ? { signal } : {})), signal, `remote ${message.to}`));
  const error = replyError(reply, message.to);
  if (error) throw error;
  if (reply.type !== expected) throw new TotError('INVALID_FORMAT', `remote ${message.to} answered ${reply.type}, expected ${expected}`, { details: { reply } });
  return reply as Extract<ProtocolMessage, { type: T }>;
}

/**
 * A {@link ThoughtGenerator} served by a remote peer over the Tree-of-Thoughts agent protocol's messages: each call sends
 * `generate_thoughts` and reads `generated_thoughts`. A reply carrying an `error` becomes a
 * {@link TotError} with that code.
 *
 * @example
 * ```ts
 * import { Explorer, protocolGenerator } from '@tot/core';
 *
 * const generator = protocolGenerator({ send: (message) => postJson('http://generator.internal/tot', message) });
 * const explorer = new Explorer({ generator, evaluator });
 * ```
 */
export function protocolGenerator(options: RemoteRoleOptions): ThoughtGenerator {
  const o = parseOptions(remoteSchema, options, 'protocolGenerator');
  const strategy = (o.strategy ?? 'sequential_proposal') as 'independent_sampling' | 'sequential_proposal';
  return {
    config: { kind: 'protocol-generator', taskId: o.taskId, strategy },
    async generate(input, callOptions = {}) {
      const payload: ProtocolPayload<'generate_thoughts'> = {
        parent_node: nodeToProtocol(input.parent),
        generation_strategy: strategy,
        num_candidates: input.k,
        context: { problem: input.context.problem, goal: input.context.goal ?? 'solve the problem', constraints: input.context.constraints ?? [] },
      };
      const reply = await exchange(o.send, { from: 'explorer', to: 'generator', task_id: o.taskId, type: 'generate_thoughts', payload }, 'generated_thoughts', callOptions.signal);
      return reply.payload.candidates.map((c) => ({ content: c.content, ...(c.action_type ? { actionType: c.action_type } : {}), ...(c.metadata ? { metadata: c.metadata } : {}) }));
    },
  };
}

/**
 * A {@link ThoughtEvaluator} served by a remote peer over the Tree-of-Thoughts agent protocol's messages: each call sends
 * `evaluate_thoughts` and reads `evaluation_results`.
 *
 * @example
 * ```ts
 * import { Explorer, protocolEvaluator } from '@tot/core';
 *
 * const evaluator = protocolEvaluator({ send: (message) => postJson('http://evaluator.internal/tot', message) });
 * const explorer = new Explorer({ generator, evaluator });
 * ```
 */
export function protocolEvaluator(options: RemoteRoleOptions): ThoughtEvaluator {
  const o = parseOptions(remoteSchema, options, 'protocolEvaluator');
  const strategy = (o.strategy ?? 'independent_scoring') as 'independent_scoring' | 'comparative_voting';
  return {
    config: { kind: 'protocol-evaluator', taskId: o.taskId, strategy, criteria: o.criteria },
    async evaluate(input, callOptions = {}) {
      const payload: ProtocolPayload<'evaluate_thoughts'> = {
        candidates: input.candidates.map(nodeToProtocol),
        evaluation_strategy: strategy,
        evaluation_criteria: o.criteria,
        context: {
          problem: input.context.problem,
          goal: input.context.goal ?? 'solve the problem',
          current_depth: input.candidates[0]?.depth ?? 0,
          max_depth: input.context.maxDepth,
        },
      };
      const reply = await exchange(o.send, { from: 'explorer', to: 'evaluator', task_id: o.taskId, type: 'evaluate_thoughts', payload }, 'evaluation_results', callOptions.signal);
      const p = reply.payload;
      return {
        evaluations: p.evaluations.map((e) => ({
          nodeId: e.node_id,
          score: e.score,
          confidence: e.confidence,
          reasoning: e.reasoning,
          ...(e.dimension_scores ? { dimensionScores: e.dimension_scores } : {}),
        })),
        ranking: p.ranking,
        pruningSuggestions: p.pruning_suggestions,
      };
    },
  };
}
