import { z } from 'zod';
import type { chainOfThoughtReplySchema } from '../cot/chain-of-thought-node.js';
import { PARTICIPANT_TAG, ROUND_TAG } from '../deliberation/call-tags.js';
import type { criticReplySchema } from '../deliberation/roles/critic.js';
import type { plannerReplySchema } from '../deliberation/roles/planner.js';
import type { reporterReplySchema } from '../deliberation/roles/reporter.js';
import { TotError } from '../errors/index.js';
import type { evalReplySchema, thinkReplySchema } from '../fractal/llm-operators.js';
import type { branchPlannerReplySchema } from '../sessions/branch-worker.js';
import { parseOptions } from '../internal/validate.js';
import { SAMPLE_INDEX_TAG } from '../model/call-model.js';
import type { ChatMessage, GenerateRequest, GenerateResult } from '../model/types.js';
import type { decomposerReplySchema } from '../roles/create-decomposer.js';
import type { evaluatorReplySchemas } from '../roles/create-evaluator.js';
import type { synthesizerReplySchema } from '../roles/create-synthesizer.js';
import { recordCall, toResult, type MockCall, type MockUsage } from './mock-response.js';

/**
 * One candidate thought of a generator reply, when a plain string is not enough.
 *
 * @example
 * ```ts
 * import type { CandidateReply } from '@tot/core/testing';
 *
 * const step: CandidateReply = { content: '13 - 9 = 4 (left: 4 4 10)', actionType: 'subtract' };
 * ```
 */
export interface CandidateReply {
  content: string;
  actionType?: string;
  metadata?: Record<string, unknown>;
}

/**
 * The reply value of each role, as a test writes it; {@link roleModel} turns it into the text the
 * runner's default parser reads. Any other role (a custom agent's, say) takes a string, sent as
 * is, or an object, sent as JSON.
 *
 * @example
 * ```ts
 * import type { RoleReplyValues } from '@tot/core/testing';
 *
 * const score: RoleReplyValues['evaluator'] = { score: 9, reasoning: 'reaches 24' };
 * const thoughts: RoleReplyValues['generator'] = ['13 - 9 = 4 (left: 4 4 10)', '10 - 4 = 6 (left: 6 9 13)'];
 * ```
 */
export interface RoleReplyValues {
  /** Explorer, solve(): the thoughts (strings or candidates); one per sample when sampling. */
  generator: string | CandidateReply | readonly (string | CandidateReply)[];
  /** Explorer, solve(): a score 0–10 (or the whole score), or, when voting, the number of the best candidate. */
  evaluator: number | z.input<(typeof evaluatorReplySchemas)['independent_scoring']> | z.input<(typeof evaluatorReplySchemas)['comparative_voting']>;
  /** solve(): the decomposition. */
  decomposer: z.input<typeof decomposerReplySchema>;
  /** solve(): the answer (a string: confident and self-checked), or the whole final solution. */
  synthesizer: string | z.input<typeof synthesizerReplySchema>;
  /** FractalSolver: do it (`RETURN`), plan it (`TODO`) or call a tool. */
  think: z.input<typeof thinkReplySchema>;
  /** FractalSolver: the next sub-goal (`CALL`) or the goal's result (`RETURN`). */
  eval: z.input<typeof evalReplySchema>;
  /** ChainOfThoughtNode: one thought. */
  'chain-of-thought': z.input<typeof chainOfThoughtReplySchema>;
  /** AgentSession (llmBranchWorker): `{ summary, plan }`; Deliberation (planner()): `{ content, position, plan }`. */
  planner: z.input<typeof branchPlannerReplySchema> | z.input<typeof plannerReplySchema>;
  /** AgentSession (llmBranchWorker): the critique as text; Deliberation (critic()): `{ content, position, critique }`. */
  critic: string | z.input<typeof criticReplySchema>;
  /** Deliberation (reporter()): the report. */
  reporter: z.input<typeof reporterReplySchema>;
  /** Deliberation (llmHost): the moderator's decision, as `parseHostReply` reads it, or as the host's own `parse` does (madDebate's verdict). */
  host:
    | string
    | { action: string; reason?: string; next_agents?: string[]; constraints?: { must_address?: string[]; avoid?: string[] }; answer?: string }
    | Record<string, unknown>;
  /** Deliberation (madDebate): the judge's verdict, as text. */
  judge: string;
  /** Deliberation (llmAgent, societyOfMind, madDebate's debaters): the agent's reply. */
  agent: string | Record<string, unknown>;
  /** OperationGraph: the outputs of a `generate` call (one string is repeated to the call's `n`). */
  generate: string | readonly string[];
  /** OperationGraph: the outputs of a model `score` call. */
  score: string | readonly string[];
  /** OperationGraph: the outputs of an `aggregate` call. */
  aggregate: string | readonly string[];
  /** OperationGraph: the outputs of an `improve` call. */
  improve: string | readonly string[];
  /** OperationGraph: the outputs of a `validateAndImprove` call. */
  validateAndImprove: string | readonly string[];
}

/**
 * What a reply function of {@link roleModel} is told about the call: its role, what the runner
 * tagged it with (the node, frame, round, agent, branch or operation it is about), how many calls
 * of that role came before it, and, as a last resort, the messages.
 *
 * @example
 * ```ts
 * import type { RoleCall } from '@tot/core/testing';
 *
 * const byDepth = (call: RoleCall) => (call.depth === 0 ? ['13 - 9 = 4 (left: 4 4 10)'] : ['4 * 6 = 24 (left: 24)']);
 * ```
 */
export interface RoleCall {
  /** The call's `role` tag. */
  role: string;
  /** Calls of this role before this one (0 for the first). */
  index: number;
  /** Calls of any role before this one. */
  callIndex: number;
  /** Every tag of the call. */
  tags: Readonly<Record<string, string>>;
  /** Generator: the node being expanded; evaluator: the candidate being scored. */
  node?: string;
  /** The depth of `node`, or of the frame (the root's is 0). */
  depth?: number;
  /** The content of `node` (`''` when the call is about no single thought). */
  thought: string;
  /** The evaluator's candidates when it votes. */
  nodes?: string[];
  /** The role's strategy (`sequential_proposal`, `independent_scoring`, …). */
  strategy?: string;
  /** FractalSolver: the frame's id and its goal. */
  frame?: string;
  goal?: string;
  /** ChainOfThoughtNode: the number of the thought asked for (1 first). */
  thoughtNumber?: number;
  /** Deliberation and AgentSession: the round (1 first). */
  round?: number;
  /** Deliberation: the participant (agent, host or reporter id). */
  agent?: string;
  /** AgentSession: the branch id. */
  branch?: string;
  /** OperationGraph: the operation's id. */
  operation?: string;
  /** The sample a call stands for when the core emulates `n` (0 first). */
  sample?: number;
  /** Outputs asked for. */
  n: number;
  /** The last user message. */
  prompt: string;
  messages: readonly ChatMessage[];
  signal?: AbortSignal;
}

/**
 * The replies of one role: a value for every call, values served in call order, or a function of
 * the call. A reply may be an `Error`, which fails the call as a provider's error would.
 *
 * @example
 * ```ts
 * import type { RoleReplies } from '@tot/core/testing';
 *
 * const scores: RoleReplies<number> = (call) => (call.thought?.includes('24') ? 10 : 3);
 * ```
 */
export type RoleReplies<V> = V | Error | readonly (V | Error)[] | ((call: RoleCall) => V | Error | Promise<V | Error>);

/**
 * Options of {@link roleModel}.
 *
 * @example
 * ```ts
 * import type { RoleModelOptions } from '@tot/core/testing';
 *
 * const options: RoleModelOptions = { replies: { evaluator: 7 }, strict: true };
 * ```
 */
export interface RoleModelOptions {
  /** Replies by role. */
  replies: { [R in keyof RoleReplyValues]?: RoleReplies<RoleReplyValues[R]> } & Record<string, RoleReplies<unknown> | undefined>;
  /**
   * Default true: a call whose role has no reply, or whose list of replies is used up, fails with
   * `GENERATION_FAILED` naming the role and what the call is about. False: a used-up list repeats
   * its last reply, and a role with no reply gets an empty reply (as from a model that said nothing).
   */
  strict?: boolean;
  /** Default `'role-model'`. */
  modelId?: string;
  /**
   * The token usage each reply reports: `'estimate'` (a quarter of the characters of the messages
   * in and of the reply out, so budgets in tokens run down as with a real model), `'unknown'` (no
   * usage, as from a provider that reports none), fixed figures (`{ inputTokens, outputTokens }`,
   * the same for every call), or a function of the request and the outputs. Default `'estimate'`.
   */
  usage?: MockUsage;
}

/**
 * A model answering by role, as returned by {@link roleModel}.
 *
 * @example
 * ```ts
 * import { roleModel } from '@tot/core/testing';
 *
 * const model = roleModel({ replies: { evaluator: 8 } });
 * model.callsFor('evaluator').length; // 0
 * ```
 */
export interface RoleModel {
  readonly modelId: string;
  readonly capabilities: { multipleOutputs: boolean };
  /** Answers one call by its role tag, as {@link roleModel} describes. */
  generate(request: GenerateRequest, options?: { signal?: AbortSignal }): Promise<GenerateResult>;
  /** Every call so far, in order, with its request, its result or error, and its role (`role`). */
  readonly calls: readonly MockCall[];
  readonly callCount: number;
  /** The calls of one role. */
  callsFor(role: string): MockCall[];
  /** The role tag of each call, in order (`'(none)'` for an untagged call). */
  roles(): string[];
  /** Forgets the calls and rewinds every list of replies. */
  reset(): void;
}

const optionsSchema = z.strictObject({
  replies: z.record(z.string(), z.unknown()),
  strict: z.boolean().default(true),
  modelId: z.string().min(1).default('role-model'),
  usage: z.unknown().optional(),
});

/** Roles whose single reply is itself a list: a flat list is one reply, a list of lists is served in order. */
const LIST_ROLES = new Set(['generator', 'generate', 'score', 'aggregate', 'improve', 'validateAndImprove']);
const OUTPUT_ROLES = new Set(['generate', 'score', 'aggregate', 'improve', 'validateAndImprove']);

/**
 * A test model that answers by what is asked, not by the prompt's wording: replies are given per
 * role (`generator`, `evaluator`, `decomposer`, `synthesizer`, `think`, `eval`, `chain-of-thought`,
 * `planner`, `critic`, `reporter`, `host`, `judge`, `agent`, and each Graph-of-Thoughts operation
 * by kind), as typed values that the model writes in the form the runner's default parser reads.
 * A reply function is told what the call is about (node, thought, depth, frame, round, agent,
 * branch, operation) from the tags every runner puts on its calls. Each call is recorded, with its
 * role. The model honours abort signals: a call ends with `ABORTED` as soon as its signal fires.
 *
 * An array of replies is served in call order, one item per call; for the roles whose reply is
 * itself a list (the generator's thoughts, an operation's outputs), a flat list is one reply and
 * a list of lists is served in order.
 *
 * @example
 * ```ts
 * import { Explorer, createEvaluator, createGenerator } from '@tot/core';
 * import { roleModel } from '@tot/core/testing';
 *
 * const model = roleModel({
 *   replies: {
 *     generator: ({ depth }) => (depth === 0 ? ['13 - 9 = 4 (left: 4 4 10)', '10 - 4 = 6 (left: 4 6 13)'] : ['(10 - 4) * 4 = 24 (left: 24)']),
 *     evaluator: ({ thought }) => ({ score: thought.includes('24') ? 10 : 3 }),
 *   },
 * });
 * const explorer = new Explorer({ generator: createGenerator({ model }), evaluator: createEvaluator({ model }), strategy: 'bfs' });
 * ```
 */
export function roleModel(options: RoleModelOptions): RoleModel {
  const o = parseOptions(optionsSchema, options, 'roleModel');
  const usage = (o.usage ?? 'estimate') as MockUsage;
  const replies = options.replies as Record<string, RoleReplies<unknown> | undefined>;
  const given = Object.keys(replies).filter((r) => replies[r] !== undefined);
  const calls: MockCall[] = [];
  const served = new Map<string, number>();
  const who = `roleModel "${o.modelId}"`;

  const fail = (message: string, request: GenerateRequest): TotError =>
    new TotError('GENERATION_FAILED', `${who}: ${message} Roles with replies: ${given.length === 0 ? '(none)' : given.join(', ')}.`, { recoverable: false, details: { request } });

  const replyFor = async (call: RoleCall, request: GenerateRequest): Promise<unknown> => {
    const reply = replies[call.role];
    if (reply === undefined) {
      if (!o.strict) return '';
      throw fail(`no reply for role "${call.role}" (call #${call.callIndex + 1}${describe(call)}).`, request);
    }
    if (typeof reply === 'function') return (reply as (c: RoleCall) => unknown)(call);
    if (!Array.isArray(reply) || (LIST_ROLES.has(call.role) && !reply.some(Array.isArray))) return reply;
    const list = reply as readonly unknown[];
    if (call.index < list.length) return list[call.index];
    if (!o.strict && list.length > 0) return list[list.length - 1];
    throw fail(`the ${list.length} replies for role "${call.role}" are used up (call #${call.callIndex + 1}${describe(call)}).`, request);
  };

  const model: RoleModel = {
    modelId: o.modelId,
    capabilities: { multipleOutputs: false },
    get calls() {
      return calls;
    },
    get callCount() {
      return calls.length;
    },
    callsFor(role) {
      return calls.filter((c) => c.role === role);
    },
    roles() {
      return calls.map((c) => c.role ?? '(none)');
    },
    reset() {
      calls.length = 0;
      served.clear();
    },
    generate(request, callOptions = {}) {
      const { signal } = callOptions;
      return recordCall(calls, request, signal, async (record) => {
        const tags = request.tags ?? {};
        const role = tags.role;
        if (role === undefined) {
          throw fail(`call #${record.index + 1} has no role tag (tags: ${JSON.stringify(tags)}), so no reply can be chosen for it.`, request);
        }
        record.role = role;
        const index = served.get(role) ?? 0;
        served.set(role, index + 1);
        const call = describeCall(role, index, record.index, request, signal);
        const value = await replyFor(call, request);
        if (value instanceof Error) throw value;
        return toResult({ outputs: serialise(role, value, call) }, request, usage, who);
      });
    },
  };
  return model;
}

function num(text: string | undefined): number | undefined {
  return text === undefined || text === '' || Number.isNaN(Number(text)) ? undefined : Number(text);
}

function describeCall(role: string, index: number, callIndex: number, request: GenerateRequest, signal: AbortSignal | undefined): RoleCall {
  const t = request.tags ?? {};
  const fields: Partial<RoleCall> = {
    node: t.node,
    depth: num(t.depth),
    nodes: t.nodes === undefined ? undefined : t.nodes.split(','),
    strategy: t.strategy,
    frame: t.frame,
    goal: t.goal,
    thoughtNumber: num(t.thoughtNumber),
    round: num(t[ROUND_TAG] ?? t.round),
    agent: t[PARTICIPANT_TAG] ?? t.agent,
    branch: t.branch,
    operation: t.operation,
    sample: num(t[SAMPLE_INDEX_TAG]),
  };
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return {
    role,
    index,
    callIndex,
    tags: t,
    thought: t.thought ?? '',
    ...defined,
    n: request.n ?? 1,
    prompt: request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '',
    messages: request.messages,
    ...(signal ? { signal } : {}),
  };
}

/** What the call is about, for error messages: its tags that say so, never its prompt. */
function describe(call: RoleCall): string {
  const parts: string[] = [];
  for (const key of ['node', 'depth', 'thought', 'strategy', 'frame', 'goal', 'thoughtNumber', 'round', 'agent', 'branch', 'operation', 'sample'] as const) {
    const v = call[key];
    if (v === undefined || v === '') continue;
    const text = String(v);
    parts.push(`${key} ${typeof v === 'number' ? text : JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)}`);
  }
  return parts.length === 0 ? '' : `: ${parts.join(', ')}`;
}

const json = (value: unknown): string => JSON.stringify(value);

function candidate(v: unknown): unknown {
  return typeof v === 'string' ? { content: v } : v;
}

/** Writes a reply value as the text the role's default parser reads; `n` outputs. */
function serialise(role: string, value: unknown, call: RoleCall): string[] {
  const n = call.n;
  const repeat = (text: string): string[] => Array.from({ length: n }, () => text);
  if (OUTPUT_ROLES.has(role)) {
    const outputs = (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v : json(v)));
    if (outputs.length === 1) return repeat(outputs[0]!);
    // The core emulates n with one call per sample: each sample gets its own output.
    if (n === 1 && call.sample !== undefined) return [outputs[call.sample % outputs.length]!];
    if (outputs.length !== n) {
      throw new TotError('INVALID_ARGUMENT', `roleModel: the reply for role "${role}" has ${outputs.length} outputs and the call asks for ${n}: give ${n}, or one to repeat.`);
    }
    return outputs;
  }
  switch (role) {
    case 'generator': {
      const candidates = (Array.isArray(value) ? value : [value]).map(candidate);
      if (call.strategy === 'independent_sampling') {
        // One candidate per sample: the sample index when the core emulates n, else in turn.
        const at = (i: number) => json(candidates[i % Math.max(1, candidates.length)]);
        return n > 1 ? Array.from({ length: n }, (_, i) => at(i)) : [at(call.sample ?? 0)];
      }
      return repeat(json({ candidates }));
    }
    case 'evaluator':
      if (typeof value === 'number') return repeat(json(call.strategy === 'comparative_voting' ? { best: value } : { score: value }));
      return repeat(json(value));
    case 'synthesizer':
      if (typeof value === 'string') return repeat(json({ answer: value, reasoning_trace: [], confidence: 1, verification: { is_valid: true } }));
      return repeat(json(value));
    default:
      return repeat(typeof value === 'string' ? value : json(value));
  }
}
