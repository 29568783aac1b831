import { z } from 'zod';
import { estimateTokens } from '../budget/estimate-tokens.js';
import { TotError } from '../errors/index.js';
import type { EventStore, NewEvent, StoredEvent } from '../events/store/types.js';
import { MAX_JSON_DEPTH, measureJson, utf8Length } from '../events/store/validate-append.js';
import { throwIfAborted } from '../internal/abort.js';
import { canonicalJson } from '../internal/canonical-json.js';
import { randomHex, sha256Hex } from '../internal/hex.js';
import { compileFastParse } from '../internal/fast-check.js';
import { parseOptions, signalSchema } from '../internal/validate.js';
import { transitionBranch, type BranchTrigger } from './branch-state.js';
import type { ThoughtEdge, ThoughtRole } from './session-events.js';
import { classifyFailure } from './failure-category.js';
import { failureSignature } from './failure-signature.js';
import { assessPlan, assessPlanOptionsSchema, DocPlan, ExecutionPlan, type AssessPlanOptions, type PlanAssessment } from './plans.js';
import { calculateReward, type BranchScore } from './reward.js';
import { auditBar, branchTokens, digest, evidenceChain, sessionMetrics, sessionMermaid, type DigestOptions, type EvidenceStep, type SessionMetrics } from './session-report.js';
import { runParallel, type ParallelResult, type RunParallelOptions } from './parallel.js';
import { approvalQuestionId, planApprovalQuestion, planApprovalSchema, type PlanApproval } from './plan-approval.js';
import { onAskSchema, type AskHandler, type Question } from '../run/question.js';
import { raceAbort } from '../internal/abort.js';
import { issueSentences } from '../internal/standard-schema.js';
import type { ParallelEvent } from './parallel-events.js';
import type { LanguageModel } from '../model/types.js';
import type { RunEmitter } from '../run/run-emitter.js';
import { SessionModel, type SessionBranch, type SessionEvidence, type SessionThought, type SessionSnapshot } from './session-model.js';
import { FINAL_SESSION_STATES, isWritable, type SessionState } from './session-state.js';

/**
 * Options of {@link AgentSession.addThought}.
 *
 * @example
 * ```ts
 * import type { AddThoughtOptions } from '@tot/core/sessions';
 *
 * const options: AddThoughtOptions = { role: 'planner', content: 'Cache the parsed config per process.', parentIds: ['t0'], edge: 'refines' };
 * ```
 */
export interface AddThoughtOptions {
  role: ThoughtRole;
  /** At most the engine's `maxThoughtChars` (default 400) characters. */
  content: string;
  /** Thoughts of this session it follows from. Default none. */
  parentIds?: string[];
  edge?: ThoughtEdge;
  /** The branch it belongs to. */
  branchId?: string;
  /**
   * Sets the plan of its branch (`branchId` is then required) in the same write: the thought and
   * the plan are stored together or not at all. Checked first as {@link AgentSession.setPlan} checks it.
   */
  plan?: unknown;
  /** The kind of `plan`. Default `execution`. */
  planKind?: string;
  /** Tokens it cost (e.g. a model call's usage). Default: `estimateTokens(content)` (a token per three characters, erring high). */
  tokens?: number;
  /** The model calls that made it (what `metrics().modelHops` counts). Default 0: a thought written by hand. */
  modelCalls?: number;
  /**
   * Makes a retried write safe: the same key returns the thought already stored (another thought
   * under it is `IDEMPOTENCY_CONFLICT`). Default, from the request alone:
   * `<session>:thought:<index after the latest parent>:<hash of role, content, parents, edge, branch
   * and plan>`, so the same thought sent again (a retry, from this process or another after a
   * restart) is stored once; give distinct keys to record one thought twice on purpose.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/**
 * Options of {@link AgentSession.exportPlan} and {@link AgentSession.exportDocPlan}.
 *
 * @example
 * ```ts
 * import type { ExportPlanOptions } from '@tot/core/sessions';
 *
 * const options: ExportPlanOptions = { requireApproval: true };
 * ```
 */
export interface ExportPlanOptions {
  /** Export only a plan a person approved ({@link AgentSession.approvePlan}). Default false (true with `onAsk`). */
  requireApproval?: boolean;
  /** Asked for the approval when none is recorded; its answer is checked and recorded. */
  onAsk?: AskHandler;
  /** Aborts the export, and the handler's wait. */
  signal?: AbortSignal;
}

/** What a session's writes share: the engine's store, writer and clock, and its checkpoint policy. */
export interface SessionContext {
  store: EventStore;
  emitter: RunEmitter<ParallelEvent>;
  model: LanguageModel | undefined;
  digestTokens: number;
  writer: string;
  now: () => number;
  checkpointEvery: { events: number; ms: number };
  /** The largest plan, as JSON bytes. */
  maxPlanBytes: number;
}

/**
 * Builds a write from the session as this writer knows it. `intent` is the write's own: made once
 * per call and kept through that call's retries, it prefixes the idempotency keys of the events
 * the write makes, so that the store takes a retry of the call for what it is and another call
 * (from this writer or another, however alike) for a write of its own.
 */
type Build = (m: SessionModel, intent: string) => { events: NewEvent[] } | { over: { used: number; max: number } };

const ROLES = ['planner', 'critic', 'tester', 'decider'] as const;
const EDGES = ['causes', 'refines', 'contradicts', 'supports'] as const;
// A writer that keeps losing the race to the stream backs off a little more each time (up to 50 ms,
// jittered so that writers stop meeting): without it, one of 8 writers on a PostgreSQL session lost more than 20 times in a row.
const CONFLICT_RETRIES = 100;
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));

const thoughtSchema = z.strictObject({
  role: z.enum(ROLES),
  content: z.string().min(1),
  parentIds: z.array(z.string().min(1)).default([]),
  edge: z.enum(EDGES).optional(),
  branchId: z.string().min(1).optional(),
  tokens: z.number().int().nonnegative().optional(),
  modelCalls: z.number().int().nonnegative().optional(),
  plan: z.unknown().optional(),
  planKind: z.string().min(1).max(200).optional(),
  idempotencyKey: z.string().min(1).max(512).optional(),
  signal: signalSchema,
});
const forkSchema = z.strictObject({ from: z.string().min(1), branches: z.array(z.strictObject({ name: z.string().min(1).max(200) })).min(1), signal: signalSchema });
// merge() hands its options on to addThought(), which checks them the same way.
const mergeSchema = thoughtSchema.pick({ content: true, role: true, edge: true, tokens: true, idempotencyKey: true, signal: true }).partial().extend({ branchIds: z.unknown() });
const signalOnlySchema = z.strictObject({ signal: signalSchema });
/**
 * The options of the calls an MCP tool makes on every call (a thought, a refresh), checked by the
 * schema compiled to plain code; what that is not sure of goes through zod, which names the field.
 */
const fastThought = compileFastParse(thoughtSchema);
const fastSignalOnly = compileFastParse(signalOnlySchema);
/** Events whose data the session builds of strings, numbers, and arrays and records of them: folded as built (see `write`). */
const FLAT_EVENTS = new Set(['thought.added', 'session.state_changed', 'branch.forked', 'branch.transitioned']);
const transitionSchema = z.strictObject({ reason: z.string().optional(), signal: signalSchema });
const exportSchema = z.strictObject({ requireApproval: z.boolean().optional(), onAsk: onAskSchema, signal: signalSchema });
const approveSchema = planApprovalSchema.extend({ signal: signalSchema });
const setPlanSchema = z.strictObject({ kind: z.string().min(1).max(200).optional(), signal: signalSchema });
const validateSchema = assessPlanOptionsSchema.extend({ signal: signalSchema });
const digestSchema = z.strictObject({ maxTokens: z.number().int().positive().optional(), audience: z.enum(['public', 'private']).optional() });

const hash = (value: unknown) => sha256Hex(canonicalJson(value), 12);

/**
 * The default idempotency key of a thought, in the session engine's form `session:thought:<index>:<hash>`
 * (in Python: `f"{session_id}:plan_step:{step_index}:{hash(content[:50])}"`), made from the request
 * alone so that the same request sent again, by this object or by another process after a
 * restart, finds the thought it stored:
 * - `index` is the position right after the thought's latest parent (parents `t3`, `t7` → 8; a
 *   root → 0): the step it takes in its line of thought, known before the write. (The position
 *   it will get in the stream is not: it moves with every other writer's thoughts, so a retry
 *   would compute another key.)
 * - the hash covers the role, the parents, the edge, the branch and the whole content, not the
 *   first 50 characters the session engine's specification hashed: with the index taken from the parents, two different thoughts on
 *   one parent that open with the same 50 characters (two variants of one plan) would otherwise
 *   share a key and the second be refused as a conflict.
 *
 * So the same thought (same role, parents, edge, branch and words) is one thought; to record it
 * twice on purpose, give each write its own `idempotencyKey`.
 */
function thoughtKey(sessionId: string, body: { role: string; content: string; parentIds: string[]; edge?: string; branchId?: string }, plan: { plan: unknown; kind: string } | undefined): string {
  let index = 0;
  for (const p of body.parentIds) {
    const n = /^t(\d+)$/.exec(p);
    if (n) index = Math.max(index, Number(n[1]) + 1);
  }
  // With its plan: the same thought with another plan is another request, not a retry of this one.
  return [sessionId, ':thought:', index, ':', hash(plan === undefined ? body : { ...body, plan })].join('');
}

/** Branch states whose plan can no longer change: a validated plan is what export hands to an executor. */
const PLAN_FIXED = new Set(['validated', 'early_stopped', 'completed', 'executing', 'evidence_received']);

/** How deep a plan may nest: its event's data holds it one level down, and the stores take 512. */
const MAX_PLAN_DEPTH = MAX_JSON_DEPTH - 1;

/**
 * Refuses, with `INVALID_ARGUMENT` naming the limit, a plan the session's stream cannot hold:
 * nested deeper than {@link MAX_PLAN_DEPTH}, not JSON, or larger than `maxBytes` as JSON. Runs
 * before anything copies, hashes or writes the plan, on its own stack: copying and hashing
 * recurse, and a plan a few thousand levels deep overflowed the call stack there.
 */
function checkPlan(plan: unknown, maxBytes: number, where: string): void {
  let bound: number;
  try {
    if (nestsDeeper(plan, MAX_PLAN_DEPTH, maxBytes)) {
      throw new TotError('INVALID_ARGUMENT', `${where}: the plan nests deeper than ${MAX_PLAN_DEPTH} levels of arrays and objects, the most its event can hold: flatten it.`, { details: { field: 'plan' } });
    }
    bound = measureJson(plan, 'plan', maxBytes);
  } catch (error) {
    if (TotError.hasCode(error, 'INVALID_ARGUMENT') && error.message.startsWith(where)) throw error;
    const why = TotError.hasCode(error, 'INVALID_ARGUMENT') ? error.message.replace(/^event store: /, '') : `reading it threw: ${(error as Error)?.message ?? String(error)}`;
    throw new TotError('INVALID_ARGUMENT', `${where}: the plan cannot be stored (${why}): send plain JSON (objects, arrays, strings, finite numbers, booleans, null).`, { details: { field: 'plan' }, cause: error });
  }
  if (bound <= maxBytes) return;
  const size = bound === Number.POSITIVE_INFINITY ? undefined : utf8Length(JSON.stringify(plan));
  if (size !== undefined && size <= maxBytes) return;
  throw new TotError('INVALID_ARGUMENT', `${where}: the plan's JSON is ${size === undefined ? '' : `${size} bytes, `}over the limit of ${maxBytes} bytes: keep the plan to its steps and limits, and its bulk (diffs, files) outside the session.`, {
    details: { field: 'plan', ...(size === undefined ? {} : { size }) },
  });
}

/**
 * Whether `value` nests arrays and objects more than `limit` deep (a cycle does). Gives up, saying
 * no, after `budget` values: each is at least a byte of JSON, so the size check refuses the rest.
 */
function nestsDeeper(value: unknown, limit: number, budget: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  for (let seen = 0; values.length > 0 && seen <= budget; seen++) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= limit) return true;
    for (const item of Array.isArray(v) ? v : Object.values(v)) {
      values.push(item);
      depths.push(depth + 1);
    }
  }
  return false;
}

const copy = <T>(value: T): T => structuredClone(value);
/**
 * A thought's copy, field by field: its fields are strings, numbers, an array of strings and a flat
 * record, and `structuredClone` of one cost 7 µs, a few per cent of an `addThought` (the
 * sequentialthinking benchmark).
 */
const copyThought = (t: SessionThought): SessionThought => ({ ...t, parentIds: [...t.parentIds], clock: { ...t.clock } });

/**
 * How far apart automatic checkpoints are, as a share of the events the last one holds. A
 * checkpoint serialises the whole session, so at a fixed interval (every 100 events) a session of
 * n events paid n/100 events' worth of JSON for each event added: at 100,000 thoughts, 78% of
 * `addThought`'s time. An interval that grows with the session (every max(100, the last
 * checkpoint's version) events: the checkpoints double) costs a constant amount per event,
 * amortised: all of them together hold at most twice the session's events.
 *
 * Doubling rather than growing by a quarter (5 events' worth of JSON per event): on SQLite the
 * checkpoints of a 10,000-thought session cost 75 to 95 µs of CPU per `addThought` at a quarter
 * and about 30 at doubling. What a restore pays for it: up to as many events to fold as the checkpoint
 * holds instead of a quarter of them, but loading a checkpoint costs about 12 µs an event it holds
 * and folding one about 20, so the worst restore of a 10,000-thought session (checkpoint at 5,000,
 * 5,000 to fold) took 143 to 193 ms of CPU in two runs, against 174 to 181 ms at a quarter
 * (checkpoint at 8,000, 2,000 to fold).
 */
const CHECKPOINT_GROWTH = 1;

/**
 * One agent session, live: its thought DAG, its branches and their state machine, its
 * budget, all as events in the session's stream. Every write is checked against the session as
 * the store holds it: a writer that was behind (another process wrote meanwhile) gets the store's
 * `EXPECTED_VERSION_CONFLICT` (an HTTP 409 conflict), reads what it missed, checks again and retries, so
 * nothing is lost or written twice. Each call is one append, stored whole or not at all, under
 * idempotency keys of the call's own: another call, however alike and from whichever writer, is
 * a write of its own, applied from the state the first left or refused (only a thought is known
 * by what it says, see {@link AddThoughtOptions.idempotencyKey}). The writes of one session
 * object run one at a time. Sessions are made by {@link SessionEngine.startSession} and
 * {@link SessionEngine.restore}.
 *
 * @example
 * ```ts
 * const s = await engine.startSession({ goal: 'Speed up config loading', successCriteria: ['p95 < 5 ms'], budget: { maxTokens: 5000 } });
 * const t = await s.addThought({ role: 'planner', content: 'Cache the parsed config per process.' });
 * const [a, b] = await s.fork({ from: t.id, branches: [{ name: 'lru' }, { name: 'memo' }] });
 * await s.transition(a!.id, 'user_input');
 * ```
 */
export class AgentSession {
  private readonly model: SessionModel;
  private lastCheckpoint: { version: number; at: number };
  // One write or read of the store at a time in this session object: they fold in order.
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * What makes this object's calls' intents its own: 128 random bits drawn once, then a count. As
   * unique as a UUID per call, which cost a random draw and its text on every write (about 1 µs and
   * 600 bytes of an MCP tool call).
   */
  private readonly intentPrefix = randomHex(16);
  private intents = 0;

  /**
   * The session's `session.started` event while it is not stored yet (a deferred start): the next
   * write appends it first, in the same append, where the stream must not exist yet.
   */
  private pendingStart: NewEvent | undefined;

  /** @internal Sessions are made by the engine. */
  constructor(
    private readonly ctx: SessionContext,
    model: SessionModel,
    checkpointVersion: number,
    pendingStart?: NewEvent,
  ) {
    this.model = model;
    this.lastCheckpoint = { version: checkpointVersion, at: ctx.now() };
    this.pendingStart = pendingStart;
  }

  /**
   * The session's id (`sess_<uuid>`), also its stream's id.
   *
   * @example
   * ```ts
   * const again = await engine.restore(session.id);
   * ```
   */
  get id(): string {
    return this.model.snapshot.id;
  }

  /**
   * The session's state.
   *
   * @example
   * ```ts
   * if (session.state === 'warning') console.warn('80% of a budget used');
   * ```
   */
  get state(): SessionState {
    return this.model.snapshot.state;
  }

  /**
   * The stream version this session has folded up to (its event count less one).
   *
   * @example
   * ```ts
   * session.version;
   * ```
   */
  get version(): number {
    return this.model.snapshot.version;
  }

  /**
   * The whole session as JSON (a copy).
   *
   * @example
   * ```ts
   * const { thoughts, branches, tokensUsed } = session.snapshot();
   * ```
   */
  snapshot(): SessionSnapshot {
    return copy(this.model.snapshot);
  }

  /**
   * A thought by id (a copy).
   *
   * @example
   * ```ts
   * session.thought('t0')?.content;
   * ```
   */
  thought(id: string): SessionThought | undefined {
    const t = this.model.thoughtIndex.get(id);
    return t ? copyThought(t) : undefined;
  }

  /**
   * A branch by id (a copy).
   *
   * @example
   * ```ts
   * session.branch('br0')?.state;
   * ```
   */
  branch(id: string): SessionBranch | undefined {
    const b = this.model.branchIndex.get(id);
    return b ? copy(b) : undefined;
  }

  /**
   * How many thoughts the session holds (their ids are `t0` to `t<count - 1>`), without copying
   * anything: with {@link AgentSession.thought}, what a reader that keeps its own index of a long
   * session needs to read only the thoughts added since it last looked.
   *
   * @example
   * ```ts
   * for (let i = seen; i < session.thoughtCount; i++) index(session.thought(`t${i}`)!);
   * ```
   */
  get thoughtCount(): number {
    return this.model.snapshot.thoughts.length;
  }

  /**
   * How many branches the session holds (their ids are `br0` to `br<count - 1>`), without copying anything.
   *
   * @example
   * ```ts
   * const newest = session.branch(`br${session.branchCount - 1}`);
   * ```
   */
  get branchCount(): number {
    return this.model.snapshot.branches.length;
  }

  /**
   * The most characters a thought of this session may have (the engine's `limits.maxThoughtChars` when it started).
   *
   * @example
   * ```ts
   * if (text.length > session.maxThoughtChars) console.warn('split it into several thoughts');
   * ```
   */
  get maxThoughtChars(): number {
    return this.model.snapshot.maxThoughtChars;
  }

  /**
   * The thought stored under an `idempotencyKey` a caller gave {@link AgentSession.addThought} (a
   * copy), or undefined: whether a write was stored, without reading the whole session.
   *
   * @example
   * ```ts
   * const done = session.thoughtByKey('import-plan:step-3') ?? (await session.addThought({ role: 'planner', content, idempotencyKey: 'import-plan:step-3' }));
   * ```
   */
  thoughtByKey(idempotencyKey: string): SessionThought | undefined {
    // Joined: a template's text is a tree of pieces, which the lookup would first copy into one.
    const t = this.model.keyIndex.get([this.id, ':key:', idempotencyKey].join(''));
    return t ? copyThought(t) : undefined;
  }

  /**
   * Reads what other writers added to the session since this one last did.
   *
   * @example
   * ```ts
   * await session.refresh();
   * ```
   */
  async refresh(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (fastSignalOnly?.(options) === undefined) parseOptions(signalOnlySchema, options, 'AgentSession.refresh');
    return this.serial(async () => {
      // A start not known to be stored: nothing to read, unless the first write was stored with
      // it and its reply lost (then the session goes on from the store, that write included).
      if (this.pendingStart) {
        if ((await this.ctx.store.streamVersion(this.id)) === null || !(await this.startStored(this.pendingStart))) return;
        this.pendingStart = undefined;
      }
      // The stream's version is one indexed lookup in every store; reading the events after ours
      // is a paged query even when there are none, and most refreshes find none (a server's
      // session cache refreshes before every tool call).
      if ((await this.ctx.store.streamVersion(this.id)) === this.version) return;
      await this.readNew(options.signal);
    });
  }

  /**
   * Adds a thought. Refused with `INVALID_ARGUMENT` when its content is over the length limit, a
   * parent or its branch does not exist; with `ILLEGAL_STATE` when the session is paused or over;
   * with `BUDGET_EXCEEDED` when its tokens pass the session's token budget (the session then ends
   * `budget_exceeded`). A thought already stored under the same idempotency key (the caller's,
   * or the default one derived from the request) is returned as it is, whatever the session's
   * state: the same request sent twice, or again after a restart, adds one thought. With `plan`,
   * the thought and its branch's plan are one write, checked whole (the plan as
   * {@link AgentSession.setPlan} checks it) before anything is stored.
   *
   * @example
   * ```ts
   * const critique = await session.addThought({ role: 'critic', content: 'The cache never expires.', parentIds: [t.id], edge: 'contradicts' });
   * await session.addThought({ role: 'planner', content: 'Expire entries after 60 s.', parentIds: [critique.id], branchId: 'br0', plan });
   * ```
   */
  async addThought(options: AddThoughtOptions): Promise<SessionThought> {
    const o = fastThought?.(options) ?? parseOptions(thoughtSchema, options, 'AgentSession.addThought');
    // A copy: the checked options may be the caller's own object, and the write is built after an await.
    const body = { role: o.role, content: o.content, parentIds: [...o.parentIds], ...(o.edge ? { edge: o.edge } : {}), ...(o.branchId ? { branchId: o.branchId } : {}) };
    const plan = o.plan === undefined ? undefined : { plan: o.plan, kind: o.planKind ?? 'execution' };
    if (plan) {
      if (o.branchId === undefined) throw new TotError('INVALID_ARGUMENT', 'AgentSession.addThought: options.plan: a plan belongs to a branch: give options.branchId too.', { details: { field: 'options.branchId' } });
      checkPlan(plan.plan, this.ctx.maxPlanBytes, 'AgentSession.addThought');
    }
    // A caller's key is the session's own: the same key in another session is another write. The
    // default key comes from the request alone, so a retry finds its thought after a restart.
    // Joined rather than a template: a template's text is a tree of its pieces, and the key is kept
    // with the thought (by the session and the store) as long as the session is held.
    const key = o.idempotencyKey === undefined ? thoughtKey(this.id, body, plan) : [this.id, ':key:', o.idempotencyKey].join('');
    const stored = (): SessionThought | undefined => {
      const t = this.model.keyIndex.get(key);
      if (!t) return undefined;
      const same = t.role === o.role && t.content === o.content && canonicalJson(t.parentIds) === canonicalJson(body.parentIds) && t.branchId === o.branchId && t.edge === o.edge;
      if (!same) throw new TotError('IDEMPOTENCY_CONFLICT', `AgentSession.addThought: idempotency key "${o.idempotencyKey ?? key}" already names thought ${t.id}, a different one.`, { details: { idempotencyKey: o.idempotencyKey ?? key } });
      return t;
    };
    // A retried write whose thought is stored gets it back, whatever the session's state now.
    await this.queue;
    const before = stored();
    if (before) return copyThought(before);
    let found: SessionThought | undefined;
    await this.commit('addThought', o.signal, (m, intent) => {
      const s = m.snapshot;
      // Stored meanwhile: by another writer (another process retrying the same request), or by this
      // very write when its reply was lost and the store's conflict sent it round again.
      found = stored();
      if (found) return { events: [] };
      if (o.content.length > s.maxThoughtChars) {
        throw new TotError('INVALID_ARGUMENT', `AgentSession.addThought: options.content: ${o.content.length} characters, over the limit of ${s.maxThoughtChars}: say it shorter, or split it into thoughts.`, { details: { field: 'options.content' } });
      }
      body.parentIds.forEach((p, i) => {
        if (!m.thoughtIndex.has(p)) throw new TotError('INVALID_ARGUMENT', `AgentSession.addThought: options.parentIds[${i}]: no thought ${p} in session ${s.id}.`, { details: { field: `options.parentIds[${i}]` } });
      });
      if (o.branchId !== undefined && !m.branchIndex.has(o.branchId)) throw new TotError('INVALID_ARGUMENT', `AgentSession.addThought: options.branchId: no branch ${o.branchId} in session ${s.id}.`, { details: { field: 'options.branchId' } });
      const tokens = o.tokens ?? estimateTokens(o.content);
      const max = s.budget.maxTokens;
      if (max !== undefined && s.tokensUsed + tokens > max) return { over: { used: s.tokensUsed + tokens, max } };
      const index = s.thoughts.length;
      const writer = this.ctx.writer;
      const clock = { ...s.clock };
      clock[writer] = (clock[writer] ?? 0) + 1;
      // Field by field, in the order the stored JSON has always had (a retry compares it):
      // spreads of the optional fields made objects to throw away on every thought.
      const data: Record<string, unknown> = { role: body.role, content: body.content, parentIds: body.parentIds };
      if (body.edge) data.edge = body.edge;
      if (body.branchId) data.branchId = body.branchId;
      data.thoughtId = `t${index}`;
      data.tokens = tokens;
      if (o.modelCalls) data.modelCalls = o.modelCalls;
      data.writer = writer;
      data.clock = clock;
      data.at = this.ctx.now();
      const events: NewEvent[] = [{ type: 'thought.added', data, idempotencyKey: key, parentIds: body.parentIds, clock }];
      // In the thought's batch, which the store applies whole or not at all: a plan the store
      // refuses leaves no thought behind either, and a retry finds both or neither.
      if (plan) events.push(this.planEvent(m, o.branchId!, plan, `${key}:plan`, 'addThought'));
      const warning = this.warning(m, { tokens: s.tokensUsed + tokens }, intent);
      if (warning) events.push(warning);
      return { events };
    });
    // The thought stored under the call's key: this write's, or an earlier attempt's whose reply was lost.
    return copyThought(found ?? this.model.keyIndex.get(key)!);
  }

  /**
   * Forks branches from a thought; each starts in state `init`. Refused with `BUDGET_EXCEEDED`
   * when they would pass the session's branch budget.
   *
   * @example
   * ```ts
   * const branches = await session.fork({ from: 't3', branches: [{ name: 'plan_a' }, { name: 'plan_b' }, { name: 'plan_c' }] });
   * ```
   */
  async fork(options: { from: string; branches: { name: string }[]; signal?: AbortSignal }): Promise<SessionBranch[]> {
    const o = parseOptions(forkSchema, options, 'AgentSession.fork');
    const { events: [stored] } = await this.commit('fork', o.signal, (m, intent) => {
      const s = m.snapshot;
      if (!m.thoughtIndex.has(o.from)) throw new TotError('INVALID_ARGUMENT', `AgentSession.fork: options.from: no thought ${o.from} in session ${s.id}.`, { details: { field: 'options.from' } });
      const count = s.branches.length + o.branches.length;
      const max = s.budget.maxBranches;
      if (max !== undefined && count > max) {
        throw new TotError('BUDGET_EXCEEDED', `AgentSession.fork: ${o.branches.length} more branches would make ${count}, over the session's budget of ${max}.`, { details: { limit: 'branches', committed: s.branches.length, requested: o.branches.length, max } });
      }
      const branches = o.branches.map((b, i) => ({ branchId: `br${s.branches.length + i}`, name: b.name }));
      const data = { from: o.from, branches, at: this.ctx.now() };
      const events: NewEvent[] = [{ type: 'branch.forked', data, idempotencyKey: `${intent}:fork`, parentIds: [o.from] }];
      const warning = this.warning(m, { branches: count }, intent);
      if (warning) events.push(warning);
      return { events };
    });
    return (stored!.data as { branches: { branchId: string }[] }).branches.map((b) => copy(this.model.branchIndex.get(b.branchId)!));
  }

  /**
   * Merges branches: a thought (a `decider`'s by default) whose parents are the branches' latest
   * thoughts (or their fork points), in the order given, that can carry on as one line of thought.
   * The branches keep their states (the session engine's machine has no merged state).
   *
   * @example
   * ```ts
   * const joined = await session.merge({ branchIds: ['br0', 'br2'], content: 'Cache per process, invalidate on SIGHUP.' });
   * ```
   */
  async merge(options: { branchIds: string[]; content: string; role?: ThoughtRole; edge?: ThoughtEdge; tokens?: number; idempotencyKey?: string; signal?: AbortSignal }): Promise<SessionThought> {
    parseOptions(mergeSchema, options, 'AgentSession.merge');
    if (!Array.isArray(options.branchIds) || options.branchIds.length < 2) throw new TotError('INVALID_ARGUMENT', 'AgentSession.merge: options.branchIds: give two branches or more.', { details: { field: 'options.branchIds' } });
    // After this object's writes in flight, so that the branches' latest thoughts are current.
    await this.queue;
    const parentIds = options.branchIds.map((id, i) => {
      const b = this.model.branchIndex.get(id);
      if (!b) throw new TotError('INVALID_ARGUMENT', `AgentSession.merge: options.branchIds[${i}]: no branch ${id} in session ${this.id}.`, { details: { field: `options.branchIds[${i}]` } });
      return b.thoughtIds.at(-1) ?? b.from;
    });
    return this.addThought({
      role: options.role ?? 'decider',
      content: options.content,
      parentIds: [...new Set(parentIds)],
      edge: options.edge ?? 'supports',
      ...(options.tokens === undefined ? {} : { tokens: options.tokens }),
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /**
   * Moves a branch along the session engine's state machine (`ILLEGAL_STATE` for a transition the table
   * does not have; nothing is written). Each call is a move of its own: when another writer moved
   * the branch first, this one is applied from the state that writer left, or refused with
   * `ILLEGAL_STATE` when that state does not take the trigger.
   *
   * @example
   * ```ts
   * await session.transition('br0', 'user_input');            // init → planning
   * await session.transition('br1', 'race_lost', { reason: 'br0 validated first' });
   * ```
   */
  transition(branchId: string, trigger: BranchTrigger, options: { reason?: string; signal?: AbortSignal } = {}): Promise<SessionBranch> {
    return this.transitions(branchId, [trigger], options);
  }

  /**
   * @internal Moves a branch through several triggers in one write: every move is stored, or none
   * is (an illegal one refuses them all).
   *
   * @example
   * ```ts
   * await session.transitions('br1', ['user_input', 'race_lost'], { reason: 'br0 validated first' }); // init → planning → early_stopped
   * ```
   */
  async transitions(branchId: string, triggers: BranchTrigger[], options: { reason?: string; signal?: AbortSignal } = {}): Promise<SessionBranch> {
    parseOptions(transitionSchema, options, 'AgentSession.transition');
    await this.commit('transition', options.signal, (m, intent) => {
      const b = m.branchIndex.get(branchId);
      if (!b) throw new TotError('INVALID_ARGUMENT', `AgentSession.transition: no branch ${branchId} in session ${m.snapshot.id}.`, { details: { field: 'branchId' } });
      const at = this.ctx.now();
      let from = b.state;
      return {
        events: triggers.map((trigger, i) => {
          const to = transitionBranch(from, trigger, b.id);
          const data = { branchId, trigger, from, to, ...(options.reason === undefined ? {} : { reason: options.reason }), at };
          from = to;
          return { type: 'branch.transitioned', data, idempotencyKey: `${intent}:${i}` };
        }),
      };
    });
    return copy(this.model.branchIndex.get(branchId)!);
  }

  /**
   * Gives a branch its plan (an execution plan, a doc plan, or a plan of your own kind), to be
   * validated with {@link AgentSession.validatePlan}. Refused with `INVALID_ARGUMENT`, before
   * anything is written, when the plan is not JSON, nests more than 511 arrays and objects deep,
   * or is larger than the engine's `limits.maxPlanBytes` (1 MiB) as JSON; with `ILLEGAL_STATE`
   * when the branch is validated or past it. Each call is a write of its own: two calls with the
   * same plan, from one writer or two, store it twice.
   *
   * @example
   * ```ts
   * await session.setPlan('br0', { rollback: { strategy: 'git_revert' }, limits: { max_changes: 40 }, capabilities_required: ['safe_edit'], success_criteria: ['tests pass'] });
   * ```
   */
  async setPlan(branchId: string, plan: unknown, options: { kind?: string; signal?: AbortSignal } = {}): Promise<SessionBranch> {
    parseOptions(setPlanSchema, options, 'AgentSession.setPlan');
    const kind = options.kind ?? 'execution';
    checkPlan(plan, this.ctx.maxPlanBytes, 'AgentSession.setPlan');
    await this.commit('setPlan', options.signal, (m, intent) => ({ events: [this.planEvent(m, branchId, { plan, kind }, `${intent}:plan`, 'setPlan')] }));
    return copy(this.model.branchIndex.get(branchId)!);
  }

  /** The event that gives a branch its plan (checked by {@link checkPlan} first), or why the branch takes none. */
  private planEvent(m: SessionModel, branchId: string, plan: { plan: unknown; kind: string }, key: string, where: string): NewEvent {
    const b = this.branchOf(m, branchId, where);
    // A validated plan is what export hands to an executor: changing it would export a plan no
    // validation passed. Fork a new branch to try another.
    if (PLAN_FIXED.has(b.state)) {
      throw new TotError('ILLEGAL_STATE', `AgentSession.${where}: branch ${b.id} is ${b.state}: its plan can no longer change (fork a new branch to try another).`, { details: { branchId: b.id, status: b.state } });
    }
    return { type: 'branch.planned', data: { branchId, kind: plan.kind, plan: copy(plan.plan), at: this.ctx.now() }, idempotencyKey: key };
  }

  /**
   * Validates a branch's plan: its schema with the session engine's rules ({@link ExecutionPlan},
   * {@link DocPlan}, or `schema`), its completeness and its risk. The branch is taken to
   * `validating` (through `planning` and `scoring` when it is not there yet, or again after a
   * rejection), scored (completeness, risk, cost in tokens, reward) and moved to `validated` or
   * `rejected` — one atomic write. A branch already past validation is assessed without moving.
   *
   * @example
   * ```ts
   * const { ok, issues, completeness, risk } = await session.validatePlan('br0', { kind: 'execution' });
   * ```
   */
  validatePlan(branchId: string, options: AssessPlanOptions & { signal?: AbortSignal } = {}): Promise<PlanAssessment & { branch: SessionBranch }> {
    return this.validateAs(branchId, options, undefined, undefined);
  }

  /**
   * @internal `validatePlan`, with `admit` asked (in the same tick as the write is made, so that
   * of branches racing to validate exactly one is admitted) whether a passing plan may validate;
   * with `plan`, the branch is given that plan in the same write (both are stored, or neither).
   *
   * @example
   * ```ts
   * let winner: string | undefined;
   * await session.validateAs('br0', {}, (ok) => !ok || (winner ??= 'br0') === 'br0', { plan, kind: 'execution' });
   * ```
   */
  async validateAs(branchId: string, options: AssessPlanOptions & { signal?: AbortSignal }, admit: ((ok: boolean) => boolean) | undefined, plan: { plan: unknown; kind: string } | undefined): Promise<PlanAssessment & { branch: SessionBranch }> {
    parseOptions(validateSchema, options, 'AgentSession.validatePlan');
    if (plan) checkPlan(plan.plan, this.ctx.maxPlanBytes, 'AgentSession.setPlan');
    let assessment: PlanAssessment | undefined;
    await this.commit('validatePlan', options.signal, (m, intent) => {
      const b = this.branchOf(m, branchId, 'validatePlan');
      const planned = plan ? this.planEvent(m, branchId, plan, `${intent}:plan`, 'setPlan') : undefined;
      const current = plan ? { plan: plan.plan, kind: plan.kind } : { plan: b.plan, kind: b.planKind };
      if (current.plan === undefined) throw new TotError('ILLEGAL_STATE', `AgentSession.validatePlan: branch ${b.id} has no plan yet: setPlan() first.`, { details: { branchId: b.id, status: b.state } });
      const { signal: _signal, ...assess } = options;
      assessment = assessPlan(current.plan, { ...assess, kind: options.kind ?? current.kind ?? 'execution' });
      if (admit && !admit(assessment.ok)) throw new TotError('ABORTED', `Branch ${b.id} lost the race: another branch validated first.`);
      const path = ({ init: ['user_input', 'user_input', 'user_input'], planning: ['user_input', 'user_input'], scoring: ['user_input'], validating: [], rejected: ['user_input', 'user_input', 'user_input'] } as Record<string, BranchTrigger[]>)[b.state];
      if (path === undefined) return { events: [] };
      const at = this.ctx.now();
      const events: NewEvent[] = planned ? [planned] : [];
      let state = b.state;
      const move = (trigger: BranchTrigger) => {
        const to = transitionBranch(state, trigger, b.id);
        events.push({ type: 'branch.transitioned', data: { branchId, trigger, from: state, to, at }, idempotencyKey: `${intent}:${events.length}` });
        state = to;
      };
      for (const trigger of path) move(trigger);
      const cost = branchTokens(m.snapshot, b);
      const score: BranchScore = { completeness: assessment.completeness.completeness, risk: assessment.risk.totalRisk, cost, historyPrior: b.score?.historyPrior ?? 0.5 };
      events.push({ type: 'branch.scored', data: { branchId, score, reward: calculateReward(score), issues: assessment.issues, at }, idempotencyKey: `${intent}:${events.length}` });
      move(assessment.ok ? 'validate_pass' : 'validate_fail');
      return { events };
    });
    return { ...assessment!, branch: copy(this.model.branchIndex.get(branchId)!) };
  }

  /**
   * The execution plan of a validated branch, for the executor, with `_got_metadata`;
   * the branch moves to `executing`. Exporting it again returns the same plan.
   *
   * With `requireApproval` (or an `onAsk` handler), export is the confirm step: the plan goes out
   * only once a person approved it ({@link AgentSession.approvePlan}). `onAsk` is asked
   * {@link AgentSession.approvalQuestion}'s question when no answer is recorded yet, and its
   * answer is recorded; without a handler, an unanswered export is `ILLEGAL_STATE` naming the
   * question, and a denied plan is `ILLEGAL_STATE` with the person's reason. A recorded approval
   * counts whether or not the export asks for one.
   *
   * @example
   * ```ts
   * const plan = await session.exportPlan('br0'); // { …, _got_metadata: { session_id, branch_id, confidence, alternatives_explored, token_cost } }
   * const approved = await session.exportPlan('br1', { onAsk: async (q) => ({ approved: await confirm(q.question) }) });
   * ```
   */
  async exportPlan(branchId: string, options: ExportPlanOptions = {}): Promise<Record<string, unknown>> {
    parseOptions(exportSchema, options, 'AgentSession.exportPlan');
    return this.exportAs(branchId, 'execution', options);
  }

  /**
   * The doc plan of a validated branch, for the documentation service, with `_got_metadata`; the
   * branch moves to `executing`. Approval works as for {@link AgentSession.exportPlan}.
   *
   * @example
   * ```ts
   * const docPlan = await session.exportDocPlan('br1');
   * ```
   */
  async exportDocPlan(branchId: string, options: ExportPlanOptions = {}): Promise<Record<string, unknown>> {
    parseOptions(exportSchema, options, 'AgentSession.exportDocPlan');
    return this.exportAs(branchId, 'doc', options);
  }

  /**
   * Records a person's word on a validated branch's plan, before it is exported for execution
   * (the confirm step). An answer that does not fit `{ approved: boolean, reason?: string }` is
   * `INVALID_ARGUMENT` and nothing is written; a branch that is not `validated` is
   * `ILLEGAL_STATE`. The same answer again is a retry and writes nothing; a different one after
   * an answer is recorded is `ILLEGAL_STATE` (fork a new branch to try another plan).
   *
   * @example
   * ```ts
   * await session.approvePlan('br0', { approved: true });
   * await session.approvePlan('br2', { approved: false, reason: 'drops a table' });
   * ```
   */
  async approvePlan(branchId: string, answer: PlanApproval & { signal?: AbortSignal }): Promise<SessionBranch> {
    const parsed = approveSchema.safeParse(answer);
    if (!parsed.success) {
      throw new TotError('INVALID_ARGUMENT', `AgentSession.approvePlan: ${approvalQuestionId(branchId)}: the answer ${issueSentences(parsed.error.issues).join(' ')} Send { approved: true } or { approved: false, reason }.`, { details: { field: 'answer' } });
    }
    const { signal, approved, reason } = parsed.data;
    await this.commit('approvePlan', signal, (m) => {
      const b = this.branchOf(m, branchId, 'approvePlan');
      if (b.approval) {
        if (b.approval.approved === approved && b.approval.reason === reason) return { events: [] };
        throw new TotError('ILLEGAL_STATE', `AgentSession.approvePlan: branch ${b.id}'s plan was ${b.approval.approved ? 'approved' : 'denied'} already${b.approval.reason ? ` (${b.approval.reason})` : ''}; an answer is given once (fork a new branch to try another plan).`, { details: { branchId: b.id, status: b.state } });
      }
      if (b.state !== 'validated') throw new TotError('ILLEGAL_STATE', `AgentSession.approvePlan: branch ${b.id} is ${b.state}: only a validated branch's plan is approved (validatePlan() it first).`, { details: { branchId: b.id, status: b.state } });
      const data = { branchId, approved, ...(reason === undefined ? {} : { reason }), at: this.ctx.now() };
      // The key names what is written: two writers approving the same branch store one answer.
      return { events: [{ type: 'branch.approval', data, idempotencyKey: `${m.snapshot.id}:${branchId}:approval` }] };
    });
    // The key is the branch's: when another writer's answer took it first, the write loop reads that
    // answer back as stored, and it is this one only if it says the same.
    const b = this.model.branchIndex.get(branchId)!;
    if (b.approval && (b.approval.approved !== approved || b.approval.reason !== reason)) {
      throw new TotError('ILLEGAL_STATE', `AgentSession.approvePlan: branch ${b.id}'s plan was ${b.approval.approved ? 'approved' : 'denied'} by another writer first${b.approval.reason ? ` (${b.approval.reason})` : ''}; an answer is given once.`, { details: { branchId: b.id, status: b.state } });
    }
    return copy(b);
  }

  /**
   * The question that approves a branch's plan, as a person or a client sees it: id
   * `branch/<branchId>#approve`, the plan, its kind and score as preview, and the JSON Schema of an
   * answer. Undefined when the branch is not `validated` or its plan was answered already.
   *
   * @example
   * ```ts
   * const q = session.approvalQuestion('br0');
   * if (q) console.log(q.id, q.question, JSON.stringify(q.preview));
   * ```
   */
  approvalQuestion(branchId: string): Question | undefined {
    const b = this.model.branchIndex.get(branchId);
    if (!b) throw new TotError('INVALID_ARGUMENT', `AgentSession.approvalQuestion: no branch ${branchId} in session ${this.id}.`, { details: { field: 'branchId' } });
    return b.state === 'validated' && !b.approval ? planApprovalQuestion(copy(b)) : undefined;
  }

  /**
   * Records an execution's result for an exported plan: the branch moves to
   * `evidence_received`; a failure is classified and signed from its stderr (or its summary) and
   * asks for a critic. The same `executionId` again returns the same evidence.
   *
   * @example
   * ```ts
   * const r = await session.receiveEvidence('br0', { executionId: 'run-17', success: false, summary: 'tests failed', stderr, exitCode: 1 });
   * r.criticNeeded; // true
   * r.failure;      // { category: 'test_failed', signature: '3f9a…' }
   * ```
   */
  async receiveEvidence(
    branchId: string,
    result: { executionId: string; success: boolean; summary: string; testsPassed?: number; testsFailed?: number; stderr?: string; exitCode?: number; tool?: string; args?: Record<string, unknown>; signal?: AbortSignal },
  ): Promise<{ evidenceId: string; criticNeeded: boolean; nextStep: 'critic_review' | 'complete'; failure?: { category: string; signature: string } }> {
    const { signal, executionId, success, summary, ...rest } = result;
    let failure: { category: string; signature: string } | undefined;
    if (!success) {
      const text = rest.stderr ?? summary;
      failure = { category: classifyFailure(text, rest.exitCode), signature: failureSignature({ stderr: text, ...(rest.exitCode === undefined ? {} : { exitCode: rest.exitCode }), ...(rest.tool ? { tool: rest.tool } : {}), ...(rest.args ? { args: rest.args } : {}) }) };
    }
    const evidence = await this.evidence(branchId, 'execution', executionId, success, summary, { ...rest }, failure, signal);
    return { evidenceId: evidence.evidenceId, criticNeeded: !evidence.success, nextStep: evidence.success ? 'complete' : 'critic_review', ...(evidence.failure ? { failure: { ...evidence.failure } } : {}) };
  }

  /**
   * Records a documentation service's validation of an exported doc plan: compliant at
   * a compliance score of 0.95 or more; the branch moves to `evidence_received`.
   *
   * @example
   * ```ts
   * const { compliant } = await session.receiveDocValidation('br1', { validationId: 'v-3', complianceScore: 0.97, placementCorrect: true, summary: 'ok' });
   * ```
   */
  async receiveDocValidation(
    branchId: string,
    result: { validationId: string; complianceScore: number; placementCorrect: boolean; summary: string; signal?: AbortSignal },
  ): Promise<{ evidenceId: string; compliant: boolean }> {
    const compliant = result.complianceScore >= 0.95;
    const evidence = await this.evidence(branchId, 'doc_validation', result.validationId, compliant, result.summary, { complianceScore: result.complianceScore, placementCorrect: result.placementCorrect }, undefined, result.signal);
    return { evidenceId: evidence.evidenceId, compliant: evidence.success };
  }

  private branchOf(m: SessionModel, branchId: string, where: string): SessionBranch {
    const b = m.branchIndex.get(branchId);
    if (!b) throw new TotError('INVALID_ARGUMENT', `AgentSession.${where}: no branch ${branchId} in session ${m.snapshot.id}.`, { details: { field: 'branchId' } });
    return b;
  }

  /** Asks `onAsk` for the person's word an export needs, when none is recorded, and records it. */
  private async askApproval(branchId: string, options: ExportPlanOptions): Promise<void> {
    const b = this.model.branchIndex.get(branchId);
    if (!options.onAsk || !b || b.state !== 'validated' || b.approval) return;
    const question = planApprovalQuestion(copy(b));
    const signal = options.signal ?? new AbortController().signal;
    let said: unknown;
    try {
      said = await raceAbort(Promise.resolve().then(() => options.onAsk!(question, { signal })), options.signal, `the approval of ${b.id}`);
    } catch (error) {
      if (TotError.hasCode(error, 'ABORTED')) throw error;
      throw new TotError('INTERNAL', `The onAsk handler threw on ${question.id}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const parsed = planApprovalSchema.safeParse(said);
    if (!parsed.success) {
      throw new TotError('INVALID_ARGUMENT', `The onAsk handler's answer to ${question.id} ${issueSentences(parsed.error.issues).join(' ')} It must be { approved: boolean, reason?: string }; nothing was recorded.`, { details: { field: 'answer', questionId: question.id } });
    }
    await this.approvePlan(branchId, { ...parsed.data, ...(options.signal ? { signal: options.signal } : {}) });
  }

  private async exportAs(branchId: string, kind: 'execution' | 'doc', options: ExportPlanOptions): Promise<Record<string, unknown>> {
    const signal = options.signal;
    const required = options.requireApproval === true || options.onAsk !== undefined;
    // An answer given through another handle or process is in the store, not yet in this handle:
    // read it before asking or refusing for want of one (the write itself would never see it, as
    // it fails before it appends).
    const known = this.model.branchIndex.get(branchId);
    if (required && known?.state === 'validated' && !known.approval) await this.refresh({ ...(signal ? { signal } : {}) });
    await this.askApproval(branchId, options);
    await this.commit(kind === 'doc' ? 'exportDocPlan' : 'exportPlan', signal, (m) => {
      const b = this.branchOf(m, branchId, kind === 'doc' ? 'exportDocPlan' : 'exportPlan');
      if ((b.planKind ?? 'execution') !== kind) throw new TotError('ILLEGAL_STATE', `Branch ${b.id} holds ${b.planKind === 'doc' ? 'a doc' : 'an execution'} plan, not ${kind === 'doc' ? 'a doc' : 'an execution'} plan.`, { details: { branchId: b.id, status: b.state } });
      if (b.state === 'executing') return { events: [] };
      if (b.state !== 'validated') throw new TotError('ILLEGAL_STATE', `Branch ${b.id} is ${b.state}: only a validated branch's plan is exported (validatePlan() it first).`, { details: { branchId: b.id, status: b.state } });
      // Checked here, in the write, so that a denial another writer recorded meanwhile still holds.
      if (b.approval && !b.approval.approved) {
        throw new TotError('ILLEGAL_STATE', `Branch ${b.id}'s plan was not approved${b.approval.reason ? ` (${b.approval.reason})` : ''}: it is not exported (fork a new branch to try another plan).`, { details: { branchId: b.id, status: b.state, questionId: approvalQuestionId(b.id) } });
      }
      if (!b.approval && required) {
        throw new TotError('ILLEGAL_STATE', `Branch ${b.id}'s plan needs a person's approval before it is exported: answer question ${approvalQuestionId(b.id)} with approvePlan('${b.id}', { approved }), or export with onAsk.`, { details: { branchId: b.id, status: b.state, questionId: approvalQuestionId(b.id) } });
      }
      const data = { branchId, trigger: 'user_input', from: 'validated', to: transitionBranch('validated', 'user_input', b.id), reason: `${kind} plan exported`, at: this.ctx.now() };
      return { events: [{ type: 'branch.transitioned', data, idempotencyKey: `${m.snapshot.id}:${branchId}:export` }] };
    });
    const s = this.model.snapshot;
    const b = this.model.branchIndex.get(branchId)!;
    // The plan as its kind's schema reads it (with its defaults: a dry run unless it says otherwise).
    const parsed = (kind === 'doc' ? DocPlan : ExecutionPlan).safeParse(b.plan);
    const value = parsed.success ? parsed.data : b.plan;
    const plan = typeof value === 'object' && value !== null ? copy(value as Record<string, unknown>) : { plan: copy(value) };
    return {
      ...plan,
      _got_metadata: {
        session_id: s.id,
        branch_id: b.id,
        ...(kind === 'execution' ? { confidence: b.reward ?? 0, alternatives_explored: s.branches.length } : {}),
        token_cost: branchTokens(s, b),
      },
    };
  }

  private async evidence(branchId: string, kind: SessionEvidence['kind'], sourceId: string, success: boolean, summary: string, data: Record<string, unknown>, failure: SessionEvidence['failure'], signal: AbortSignal | undefined): Promise<SessionEvidence> {
    const evidenceId = `${branchId}/${kind}/${sourceId}`;
    let existing: SessionEvidence | undefined;
    await this.commit(kind === 'doc_validation' ? 'receiveDocValidation' : 'receiveEvidence', signal, (m) => {
      const b = this.branchOf(m, branchId, kind === 'doc_validation' ? 'receiveDocValidation' : 'receiveEvidence');
      existing = b.evidence.find((e) => e.evidenceId === evidenceId);
      if (existing) return { events: [] };
      if (b.state !== 'executing') throw new TotError('ILLEGAL_STATE', `Branch ${b.id} is ${b.state}: evidence is for a branch whose plan was exported (executing).`, { details: { branchId: b.id, status: b.state } });
      const at = this.ctx.now();
      const trigger: BranchTrigger = success ? 'evidence_success' : 'evidence_failure';
      const base = `${m.snapshot.id}:${branchId}:${kind === 'execution' ? 'evidence' : 'doc_validation'}:${sourceId}`;
      return {
        events: [
          { type: 'evidence.received', data: { branchId, evidenceId, kind, success, summary: summary.slice(0, 300), data: copy(data), ...(failure ? { failure } : {}), at }, idempotencyKey: base },
          { type: 'branch.transitioned', data: { branchId, trigger, from: 'executing', to: transitionBranch('executing', trigger, b.id), at }, idempotencyKey: `${base}:transition` },
        ],
      };
    });
    return copy(existing ?? this.model.branchIndex.get(branchId)!.evidence.find((e) => e.evidenceId === evidenceId)!);
  }

  /**
   * Works branches in parallel and picks a winner, on the run kernel: one budget, the
   * model calls logged as events (the engine's `on`/`stream()`), abort through `signal`. `race`:
   * the first branch to validate wins and every other branch's work is aborted at once and
   * recorded `early_stopped` (`race_lost`); `best`: all finish, the highest reward wins (a
   * validated branch before any other; with none validated, the best latest reward, so check
   * `winner.state`); `vote`: the answer most validated branches give (their `answer`, else their
   * plan), ties to the higher reward; `bandit`: UCB gives one round at a time, stops at the first
   * validated branch, else ends on the best latest reward as `best` does. Each round is the
   * `worker`'s (default: the LLM-backed planner; after a rejection a critic model call reviews
   * the plan and the planner revises it), its plan validated at once.
   * Between rounds the session engine's early-stopping rules apply: 90% of the session's tokens or time,
   * a validated branch complete with risk under 0.2, and (best) two validated branches or more
   * whose rewards are within a variance of 0.1.
   *
   * @example
   * ```ts
   * const out = await session.runParallel({ branchIds: ['br0', 'br1', 'br2'], strategy: 'race', worker, signal });
   * out.winner?.id; out.branches.map((b) => `${b.branchId}: ${b.state}`);
   * ```
   */
  runParallel(options: RunParallelOptions): Promise<ParallelResult> {
    try {
      return runParallel(this, this.ctx.emitter, this.ctx.model, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The session's metrics: TPST, model hops, first-pass success, waste ratio, early stops, and
   * per branch its tokens, latency, score and outcome.
   *
   * @example
   * ```ts
   * const { tpst, wasteRatio, branches } = session.metrics();
   * ```
   */
  metrics(): SessionMetrics {
    return sessionMetrics(this.model.snapshot);
  }

  /**
   * The session engine's token audit bar, for a branch (default: the latest one still working).
   *
   * @example
   * ```ts
   * console.log(session.auditBar());
   * // ┌──────────────────────────────────────────┐
   * // │ Token Budget: [████████░░] 4200/5000     │ …
   * ```
   */
  auditBar(branchId?: string): string {
    return auditBar(this.model.snapshot, branchId);
  }

  /**
   * The evidence chain of a branch (or of every branch with a plan): plan, validations, export,
   * evidence, end.
   *
   * @example
   * ```ts
   * session.evidenceChain('br1').map((e) => `${e.step}: ${e.status}`).join(' → ');
   * ```
   */
  evidenceChain(branchId?: string): EvidenceStep[] {
    return evidenceChain(this.model.snapshot, branchId);
  }

  /**
   * A digest of the session in at most `maxTokens` (default the engine's 200): for `public`, the
   * goal redacted and no thought, plan or evidence content.
   *
   * @example
   * ```ts
   * const brief = session.digest({ maxTokens: 200, audience: 'public' });
   * ```
   */
  digest(options: DigestOptions = {}): string {
    parseOptions(digestSchema, options, 'AgentSession.digest');
    return digest(this.model.snapshot, { maxTokens: options.maxTokens ?? this.ctx.digestTokens, audience: options.audience ?? 'private' });
  }

  /**
   * The session's thought DAG as a Mermaid flowchart: branches as subgraphs, edges labelled with
   * their kind, stopped branches dashed.
   *
   * @example
   * ```ts
   * console.log(session.toMermaid());
   * ```
   */
  toMermaid(): string {
    return sessionMermaid(this.model.snapshot);
  }

  /**
   * The whole session as JSON (the same as {@link AgentSession.snapshot}).
   *
   * @example
   * ```ts
   * writeFileSync('session.json', JSON.stringify(session.toJSON(), null, 2));
   * ```
   */
  toJSON(): SessionSnapshot {
    return this.snapshot();
  }

  /**
   * Pauses the session: writes are refused until `resume()`.
   *
   * @example
   * ```ts
   * await session.pause('waiting for review');
   * ```
   */
  pause(reason?: string): Promise<void> {
    return this.changeState('paused', reason, ['active', 'warning']);
  }

  /**
   * Resumes a paused session (to `warning` if a budget is past 80%, else `active`).
   *
   * @example
   * ```ts
   * await session.resume();
   * ```
   */
  async resume(): Promise<void> {
    await this.commit(
      'resume',
      undefined,
      (m, intent) => {
        if (m.snapshot.state !== 'paused') throw new TotError('ILLEGAL_STATE', `Session ${m.snapshot.id} is ${m.snapshot.state}, not paused: there is nothing to resume.`, { details: { status: m.snapshot.state } });
        return { events: [this.stateEvent(m, this.usedRatio(m, {}) >= 0.8 ? 'warning' : 'active', `${intent}:state`)] };
      },
      { allowPaused: true },
    );
  }

  /**
   * Ends the session as completed.
   *
   * @example
   * ```ts
   * await session.complete('plan validated and executed');
   * ```
   */
  complete(reason?: string): Promise<void> {
    return this.changeState('completed', reason, ['active', 'warning', 'paused']);
  }

  /**
   * Ends the session as failed.
   *
   * @example
   * ```ts
   * await session.fail('no branch validated');
   * ```
   */
  fail(reason?: string): Promise<void> {
    return this.changeState('failed', reason, ['active', 'warning', 'paused']);
  }

  /**
   * Saves a checkpoint: the session's state at its current version, as the store's snapshot.
   * `engine.restore(id)` starts from the latest one. Sessions also checkpoint by themselves, on
   * the first write once `checkpointEvery.ms` milliseconds or enough events have passed since the
   * last checkpoint (a session that is not written to has nothing new to save): `checkpointEvery.events`
   * (100) while the session is small, then as many events as the last checkpoint holds (the
   * checkpoints double), so that the checkpoints of a long session cost a constant amount per event.
   *
   * @example
   * ```ts
   * await session.checkpoint();
   * ```
   */
  checkpoint(): Promise<{ version: number }> {
    return this.serial(() => this.saveCheckpoint());
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Folds in what others wrote since; returns the events read whose idempotency key is one of `keys`. */
  private async readNew(signal: AbortSignal | undefined, keys?: Set<string>): Promise<StoredEvent[]> {
    const found: StoredEvent[] = [];
    for await (const e of this.ctx.store.readStream(this.id, { fromVersion: this.version + 1 })) {
      throwIfAborted(signal, 'session refresh');
      this.model.apply(e);
      if (keys?.has(e.idempotencyKey)) found.push(e);
    }
    return found;
  }

  private async saveCheckpoint(): Promise<{ version: number }> {
    // A checkpoint of a session whose start is not stored would restore a session the stream lacks.
    if (this.pendingStart) {
      await this.ctx.store.append(this.id, [this.pendingStart], { expectedVersion: 'no_stream' });
      this.pendingStart = undefined;
    }
    const version = this.version;
    // The state as it is: a store keeps its own copy (the library's stores serialize it on save),
    // and cloning a large session first cost more than the save (the addThought benchmark).
    await this.ctx.store.saveSnapshot({ streamId: this.id, version, state: this.model.snapshot });
    this.lastCheckpoint = { version, at: this.ctx.now() };
    return { version };
  }

  private async changeState(to: SessionState, reason: string | undefined, from: SessionState[]): Promise<void> {
    await this.commit(
      to,
      undefined,
      (m, intent) => {
        if (!from.includes(m.snapshot.state)) throw new TotError('ILLEGAL_STATE', `Session ${m.snapshot.id} is ${m.snapshot.state}: it cannot become ${to}.`, { details: { status: m.snapshot.state, to } });
        return { events: [this.stateEvent(m, to, `${intent}:state`, reason)] };
      },
      { allowPaused: true },
    );
  }

  private stateEvent(m: SessionModel, to: SessionState, key: string, reason?: string): NewEvent {
    const s = m.snapshot;
    const data = { from: s.state, to, ...(reason === undefined ? {} : { reason }), at: this.ctx.now() };
    return { type: 'session.state_changed', data, idempotencyKey: key };
  }

  /** The largest share of a budget used, with `next` in place of what a write would change. */
  private usedRatio(m: SessionModel, next: { tokens?: number; branches?: number }): number {
    const s = m.snapshot;
    const b = s.budget;
    return Math.max(
      b.maxTokens ? (next.tokens ?? s.tokensUsed) / b.maxTokens : 0,
      b.maxBranches ? (next.branches ?? s.branches.length) / b.maxBranches : 0,
      b.maxMs ? (this.ctx.now() - s.startedAt) / b.maxMs : 0,
    );
  }

  /** The move to `warning` a write brings once 80% of a budget is used: the batch's second event. */
  private warning(m: SessionModel, next: { tokens?: number; branches?: number }, intent: string): NewEvent | undefined {
    if (m.snapshot.state !== 'active' || this.usedRatio(m, next) < 0.8) return undefined;
    return this.stateEvent(m, 'warning', `${intent}:warning`, 'a budget is 80% used');
  }

  private commit(what: string, signal: AbortSignal | undefined, build: Build, options: { allowPaused?: boolean } = {}): Promise<{ readonly events: StoredEvent[] }> {
    // Made once per call, before the first attempt: the call's retries reuse it.
    const intent = [this.id, ':', what, ':', this.intentPrefix, '.', ++this.intents].join('');
    return this.serial(() => this.write(what, signal, (m) => build(m, intent), intent, options));
  }

  /**
   * One write: built from the session as this writer knows it, appended at that version; on a
   * conflict, what others wrote is read and the write is built (and checked) again.
   */
  private async write(what: string, signal: AbortSignal | undefined, build: (m: SessionModel) => ReturnType<Build>, intent: string, options: { allowPaused?: boolean }): Promise<{ readonly events: StoredEvent[] }> {
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal, `session ${what}`);
      const m = this.model;
      const s = m.snapshot;
      if (FINAL_SESSION_STATES.includes(s.state) || (!options.allowPaused && !isWritable(s.state))) {
        throw new TotError('ILLEGAL_STATE', `Session ${s.id} is ${s.state}${s.stateReason ? ` (${s.stateReason})` : ''}: it takes no ${what}${s.state === 'paused' ? '; resume() it first' : ''}.`, { details: { status: s.state } });
      }
      const timedOut = s.budget.maxMs !== undefined && this.ctx.now() - s.startedAt > s.budget.maxMs;
      const plan = timedOut ? undefined : build(m);
      let events: NewEvent[];
      let after: TotError | undefined;
      if (plan === undefined) {
        events = [this.stateEvent(m, 'timeout', `${intent}:state`, `${s.budget.maxMs} ms passed`)];
        after = new TotError('TIMEOUT', `Session ${s.id} ran past its time budget of ${s.budget.maxMs} ms; the session is over (timeout).`, { details: { ms: s.budget.maxMs! } });
      } else if ('over' in plan) {
        events = [this.stateEvent(m, 'budget_exceeded', `${intent}:state`, `${plan.over.used} tokens of ${plan.over.max}`)];
        after = new TotError('BUDGET_EXCEEDED', `Session ${s.id}: ${plan.over.used} tokens would pass its budget of ${plan.over.max}; the session is over (budget_exceeded).`, {
          details: { limit: 'totalTokens', committed: s.tokensUsed, requested: plan.over.used - s.tokensUsed, max: plan.over.max },
        });
      } else events = plan.events;
      if (events.length === 0) return { events: [] };
      // A deferred start goes first, in the same append: the session and its first write are stored together or not at all.
      const start = this.pendingStart;
      try {
        const appended = await this.ctx.store.append(s.id, start ? [start, ...events] : events, { expectedVersion: start ? 'no_stream' : s.version, ...(signal ? { signal } : {}) });
        this.pendingStart = undefined;
        if (appended.deduplicated) await this.readNew(signal);
        else if (appended.nextExpectedVersion === s.version + events.length && events.every((e) => FLAT_EVENTS.has(e.type))) {
          // Folded as built rather than read back: the store took its own copy (their JSON), and
          // rebuilding the events from it parsed what was just written, on every write. Events
          // that carry a caller's nested values (a plan, evidence) are read back, as JSON keeps them.
          const first = s.version + 1;
          for (let i = 0; i < events.length; i++) m.apply({ type: events[i]!.type, data: events[i]!.data, version: first + i, idempotencyKey: events[i]!.idempotencyKey }, true);
        } else for (const e of appended.events) if (e.version > s.version) m.apply(e);
        // Awaited only when one is due: most writes take none.
        if (this.checkpointDue()) await this.maybeCheckpoint();
        if (after) throw after;
        // The stored events are built from the store's copy only if a caller reads them.
        return appended;
      } catch (error) {
        // Another writer got there first (or stored this very write, when its key is taken): read
        // what it wrote, then build the write again.
        const behind = TotError.hasCode(error, 'EXPECTED_VERSION_CONFLICT') || TotError.hasCode(error, 'IDEMPOTENCY_CONFLICT');
        if (!behind || attempt >= CONFLICT_RETRIES) throw error;
        // A start not known to be stored: the stream under the session's id is this session only if
        // it begins with this start (an earlier append stored it, and its reply was lost); then the
        // write goes on as any other. Else it is another session's, never something to build on.
        // Found stored, the start alone may be what took the key (a checkpoint stored it and its
        // reply was lost): the write is built again, never refused for it.
        let startFound = false;
        if (this.pendingStart) {
          if (!(await this.startStored(this.pendingStart))) throw error;
          this.pendingStart = undefined;
          startFound = true;
        }
        if (attempt > 0) await backoff(attempt);
        const version = this.version;
        // The write is stored already when what was read holds its keys: by an earlier attempt whose
        // reply was lost (the keys are the call's own), or, for keys that name what is written (a
        // thought's, an execution's evidence, an export), by another writer sending the same.
        const mine = await this.readNew(signal, new Set(events.map((e) => e.idempotencyKey)));
        if (mine.length > 0) {
          if (after) throw after;
          return { events: mine };
        }
        // A key taken while nothing new is in the stream is not this writer being behind: it is
        // the key itself (used elsewhere in the store), and trying again cannot help.
        if (!startFound && this.version === version && TotError.hasCode(error, 'IDEMPOTENCY_CONFLICT')) throw error;
      }
    }
  }

  /** Whether the session's stream begins with `start`. */
  private async startStored(start: NewEvent): Promise<boolean> {
    for await (const e of this.ctx.store.readStream(this.id, { fromVersion: 0, limit: 1 })) return e.idempotencyKey === start.idempotencyKey;
    return false;
  }

  private checkpointDue(): boolean {
    const every = this.ctx.checkpointEvery;
    const due = Math.max(every.events, Math.ceil(this.lastCheckpoint.version * CHECKPOINT_GROWTH));
    return this.version - this.lastCheckpoint.version >= due || this.ctx.now() - this.lastCheckpoint.at >= every.ms;
  }

  private async maybeCheckpoint(): Promise<void> {
    try {
      await this.saveCheckpoint();
    } catch {
      // The write it follows is stored: an automatic checkpoint that fails (a snapshot over the
      // store's size limit, a store that is down) loses nothing, and is tried again later.
      this.lastCheckpoint = { version: this.version, at: this.ctx.now() };
    }
  }
}
