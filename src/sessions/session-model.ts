import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { compileSafeParse } from '../internal/fast-check.js';
import { transitionBranch, type BranchState, type BranchTrigger } from './branch-state.js';
import { sessionEventSchemas, type SessionEventData, type SessionBudget, type ThoughtEdge, type ThoughtRole } from './session-events.js';
import type { BranchScore } from './reward.js';
import { FINAL_SESSION_STATES, SESSION_TRANSITIONS, type SessionState } from './session-state.js';

/**
 * A thought of an agent session.
 *
 * @example
 * ```ts
 * import type { SessionThought } from '@tot/core/sessions';
 *
 * const line = (t: SessionThought) => `${t.id} (${t.role}) ← ${t.parentIds.join(', ')}: ${t.content}`;
 * ```
 */
export interface SessionThought {
  /** `t<index>`, in the order the session's stream holds them. */
  id: string;
  role: ThoughtRole;
  content: string;
  parentIds: string[];
  edge?: ThoughtEdge;
  branchId?: string;
  tokens: number;
  /** The model calls that made it; absent for a thought written by hand (and in logs from before it was recorded). */
  modelCalls?: number;
  /** The idempotency key it was stored with. */
  key: string;
  /** The writer (engine) that added it, and its vector clock then. */
  writer: string;
  clock: Record<string, number>;
  at: number;
}

/**
 * A branch of an agent session: where it forked, its state and how it got there, its thoughts.
 *
 * @example
 * ```ts
 * import type { SessionBranch } from '@tot/core/sessions';
 *
 * const path = (b: SessionBranch) => b.history.map((h) => `${h.from} -${h.trigger}→ ${h.to}`).join(', ');
 * ```
 */
export interface SessionBranch {
  /** `br<index>`, in the order they were forked. */
  id: string;
  name: string;
  /** The thought it forked from. */
  from: string;
  state: BranchState;
  history: { trigger: BranchTrigger; from: BranchState; to: BranchState; reason?: string; at: number }[];
  thoughtIds: string[];
  /** Why it stopped early (`race_lost`, `budget_exceeded`), when it did. */
  earlyStopReason?: string;
  /** Its latest plan, and the kind of plan (`execution`, `doc`, …). */
  plan?: unknown;
  planKind?: string;
  /** Its latest score and reward, and the issues its last validation found. */
  score?: BranchScore;
  reward?: number;
  issues?: string[];
  /** Execution and doc-validation feedback, in order. */
  evidence: SessionEvidence[];
  /** A person's word on its validated plan (`AgentSession.approvePlan`), once given. */
  approval?: { approved: boolean; reason?: string; at: number };
}

/**
 * Feedback on a branch's exported plan: an execution's result or a doc validation.
 *
 * @example
 * ```ts
 * import type { SessionEvidence } from '@tot/core/sessions';
 *
 * const line = (e: SessionEvidence) => `${e.evidenceId} ${e.success ? 'ok' : `failed (${e.failure?.category ?? 'unknown'})`}: ${e.summary}`;
 * ```
 */
export interface SessionEvidence {
  evidenceId: string;
  kind: 'execution' | 'doc_validation';
  success: boolean;
  summary: string;
  data: Record<string, unknown>;
  failure?: { category: string; signature: string };
  at: number;
}

/**
 * The whole state of an agent session, as JSON: what a checkpoint stores and a restore rebuilds.
 *
 * @example
 * ```ts
 * import type { SessionSnapshot } from '@tot/core/sessions';
 *
 * const progress = (s: SessionSnapshot) => `${s.state}: ${s.thoughts.length} thoughts, ${s.tokensUsed} tokens`;
 * ```
 */
export interface SessionSnapshot {
  id: string;
  goal: string;
  successCriteria: string[];
  budget: SessionBudget;
  maxThoughtChars: number;
  state: SessionState;
  stateReason?: string;
  startedAt: number;
  tokensUsed: number;
  thoughts: SessionThought[];
  branches: SessionBranch[];
  /** The session's vector clock: every writer's latest counter. */
  clock: Record<string, number>;
  /** The stream version of the last event folded in (-1 before any). */
  version: number;
}

const str = z.string();
const num = z.number();
/** @internal What a checkpoint must hold to be trusted; anything else is ignored and the stream folded instead. */
export const sessionSnapshotSchema = z.looseObject({
  id: str,
  goal: str,
  successCriteria: z.array(str),
  budget: z.looseObject({}),
  maxThoughtChars: num,
  state: z.enum(['init', 'active', 'warning', 'paused', 'completed', 'failed', 'timeout', 'budget_exceeded']),
  startedAt: num,
  tokensUsed: num,
  thoughts: z.array(z.looseObject({ id: str, role: str, content: str, parentIds: z.array(str), tokens: num, key: str, writer: str, clock: z.record(str, num), at: num })),
  branches: z.array(z.looseObject({ id: str, name: str, from: str, state: str, history: z.array(z.looseObject({ trigger: str, from: str, to: str, at: num })), thoughtIds: z.array(str), evidence: z.array(z.looseObject({ evidenceId: str })) })),
  clock: z.record(str, num),
  version: z.number().int().min(0),
});

const checks = Object.fromEntries(Object.entries(sessionEventSchemas).map(([type, schema]) => [type, compileSafeParse(schema)])) as Record<SessionEventData['type'], ReturnType<typeof compileSafeParse>>;

/** An event's data by its type. */
type Of<T extends SessionEventData['type']> = Extract<SessionEventData, { type: T }>;

const corrupt = (sessionId: string, version: number, message: string) =>
  new TotError('INVALID_FORMAT', `The stream of session ${sessionId} is corrupt at version ${version}: ${message}.`, { details: { position: version } });

/**
 * A session's state with the indexes a session needs, built by folding its events in order. The
 * fold checks every event (shape, parents, branches, transitions): a stream that does not make
 * sense fails with `INVALID_FORMAT` and its version.
 */
export class SessionModel {
  readonly thoughtIndex = new Map<string, SessionThought>();
  readonly branchIndex = new Map<string, SessionBranch>();
  /** Thoughts by the idempotency key they were stored with. */
  readonly keyIndex = new Map<string, SessionThought>();

  private constructor(readonly snapshot: SessionSnapshot) {
    for (const t of snapshot.thoughts) {
      this.thoughtIndex.set(t.id, t);
      this.keyIndex.set(t.key, t);
    }
    for (const b of snapshot.branches) this.branchIndex.set(b.id, b);
  }

  /** A model from a checkpoint's state (a copy: the model changes as events are folded). */
  static fromSnapshot(state: SessionSnapshot): SessionModel {
    return new SessionModel(structuredClone(state));
  }

  /**
   * A model from the session's first event: `active` at once. The session engine's `init` is the session
   * before this event is stored; once it is, the session exists and is active (see
   * {@link SessionState}), so no model, live or restored, is ever in `init`.
   */
  static start(sessionId: string, event: { type: string; data: unknown; version: number }): SessionModel {
    if (event.type !== 'session.started' || event.version !== 0) throw corrupt(sessionId, event.version, 'a session stream begins with session.started');
    const d = checked(sessionId, event) as Extract<SessionEventData, { type: 'session.started' }>;
    return new SessionModel({
      id: d.sessionId,
      goal: d.goal,
      successCriteria: [...d.successCriteria],
      budget: { ...d.budget },
      maxThoughtChars: d.maxThoughtChars,
      state: 'active',
      startedAt: d.at,
      tokensUsed: 0,
      thoughts: [],
      branches: [],
      clock: {},
      version: 0,
    });
  }

  /**
   * Folds the next event of the stream in. `owned`: the event's data is the model's to keep (built
   * for it, its JSON already taken by the store), so a thought keeps its parent ids and clock
   * rather than copies: a long session holds one of each per thought, not two.
   */
  apply(event: { type: string; data: unknown; version: number; idempotencyKey: string }, owned = false): void {
    const s = this.snapshot;
    if (event.version !== s.version + 1) throw corrupt(s.id, event.version, `version ${event.version} follows ${s.version}`);
    // A thought this session built and the store just took is not checked again: its fields come
    // from addThought's checked options (the clock's time aside, which is checked here).
    const data = owned && event.type === 'thought.added' && Number.isFinite((event.data as { at?: unknown }).at) ? (event.data as SessionEventData) : checked(s.id, event);
    switch (event.type as SessionEventData['type']) {
      case 'session.started':
        throw corrupt(s.id, event.version, 'session.started may only begin the stream');
      case 'thought.added': {
        const d = data as Of<'thought.added'>;
        if (d.thoughtId !== `t${s.thoughts.length}`) throw corrupt(s.id, event.version, `thought ${d.thoughtId} where t${s.thoughts.length} was next`);
        for (const p of d.parentIds) if (!this.thoughtIndex.has(p)) throw corrupt(s.id, event.version, `thought ${d.thoughtId} names a parent ${p} the session does not hold`);
        const branch = d.branchId === undefined ? undefined : this.branchIndex.get(d.branchId);
        if (d.branchId !== undefined && !branch) throw corrupt(s.id, event.version, `thought ${d.thoughtId} is on a branch ${d.branchId} the session does not hold`);
        // Field by field, in the order of the thought's type: spreads of optional fields made
        // objects to throw away on every thought.
        const t = { id: d.thoughtId, role: d.role, content: d.content, parentIds: owned ? d.parentIds : [...d.parentIds] } as SessionThought;
        if (d.edge) t.edge = d.edge;
        if (d.branchId) t.branchId = d.branchId;
        t.tokens = d.tokens;
        if (d.modelCalls) t.modelCalls = d.modelCalls;
        t.key = event.idempotencyKey;
        t.writer = d.writer;
        t.clock = owned ? d.clock : { ...d.clock };
        t.at = d.at;
        s.thoughts.push(t);
        this.thoughtIndex.set(t.id, t);
        this.keyIndex.set(t.key, t);
        branch?.thoughtIds.push(t.id);
        s.tokensUsed += d.tokens;
        for (const w in d.clock) if ((s.clock[w] ?? 0) < d.clock[w]!) s.clock[w] = d.clock[w]!;
        break;
      }
      case 'branch.forked': {
        const d = data as Of<'branch.forked'>;
        if (!this.thoughtIndex.has(d.from)) throw corrupt(s.id, event.version, `a fork from a thought ${d.from} the session does not hold`);
        for (const { branchId, name } of d.branches) {
          if (branchId !== `br${s.branches.length}`) throw corrupt(s.id, event.version, `branch ${branchId} where br${s.branches.length} was next`);
          const b: SessionBranch = { id: branchId, name, from: d.from, state: 'init', history: [], thoughtIds: [], evidence: [] };
          s.branches.push(b);
          this.branchIndex.set(b.id, b);
        }
        break;
      }
      case 'branch.transitioned': {
        const d = data as Of<'branch.transitioned'>;
        const b = this.branchIndex.get(d.branchId);
        if (!b) throw corrupt(s.id, event.version, `a transition of a branch ${d.branchId} the session does not hold`);
        if (b.state !== d.from) throw corrupt(s.id, event.version, `branch ${b.id} is ${b.state}, not ${d.from}`);
        let to: BranchState;
        try {
          to = transitionBranch(b.state, d.trigger, b.id);
        } catch (error) {
          throw corrupt(s.id, event.version, (error as Error).message);
        }
        if (to !== d.to) throw corrupt(s.id, event.version, `branch ${b.id} goes to ${to} on ${d.trigger}, not ${d.to}`);
        b.state = to;
        b.history.push({ trigger: d.trigger, from: d.from, to, ...(d.reason === undefined ? {} : { reason: d.reason }), at: d.at });
        if (to === 'early_stopped') b.earlyStopReason = d.reason ?? d.trigger;
        break;
      }
      case 'branch.planned':
      case 'branch.scored':
      case 'evidence.received': {
        const b = this.branchIndex.get((data as Of<'branch.planned'>).branchId);
        if (!b) throw corrupt(s.id, event.version, `${event.type} names a branch ${(data as Of<'branch.planned'>).branchId} the session does not hold`);
        if (event.type === 'branch.planned') {
          const d = data as Of<'branch.planned'>;
          b.plan = structuredClone(d.plan);
          b.planKind = d.kind;
        } else if (event.type === 'branch.scored') {
          const d = data as Of<'branch.scored'>;
          b.score = { ...d.score };
          b.reward = d.reward;
          if (d.issues === undefined) delete b.issues;
          else b.issues = [...d.issues];
        } else {
          const d = data as Of<'evidence.received'>;
          b.evidence.push({ evidenceId: d.evidenceId, kind: d.kind, success: d.success, summary: d.summary, data: structuredClone(d.data), ...(d.failure ? { failure: { ...d.failure } } : {}), at: d.at });
        }
        break;
      }
      case 'branch.approval': {
        const d = data as Of<'branch.approval'>;
        const b = this.branchIndex.get(d.branchId);
        if (!b) throw corrupt(s.id, event.version, `an approval of a branch ${d.branchId} the session does not hold`);
        if (b.approval) throw corrupt(s.id, event.version, `branch ${b.id} was approved or denied already`);
        b.approval = { approved: d.approved, ...(d.reason === undefined ? {} : { reason: d.reason }), at: d.at };
        break;
      }
      case 'session.state_changed': {
        const d = data as Of<'session.state_changed'>;
        if (s.state !== d.from) throw corrupt(s.id, event.version, `the session is ${s.state}, not ${d.from}`);
        if (FINAL_SESSION_STATES.includes(s.state)) throw corrupt(s.id, event.version, `the session is ${s.state}, which is final`);
        if (!SESSION_TRANSITIONS[s.state].includes(d.to)) throw corrupt(s.id, event.version, `a session goes from ${s.state} to ${d.to} in no operation`);
        s.state = d.to;
        if (d.reason === undefined) delete s.stateReason;
        else s.stateReason = d.reason;
        break;
      }
    }
    s.version = event.version;
  }
}

/**
 * The event's data, checked, typed by the event's type (a data object carries no `type` of its own:
 * callers switch on the event's).
 */
function checked(sessionId: string, event: { type: string; data: unknown; version: number }): SessionEventData {
  const check = checks[event.type as SessionEventData['type']];
  if (!check) throw corrupt(sessionId, event.version, `an event of unknown type ${event.type}`);
  const parsed = check(event.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw corrupt(sessionId, event.version, `${event.type}: ${issue.path.join('.') || '(data)'}: ${issue.message}`);
  }
  // The data as it is, its type beside it: a copy of every event's data was garbage on every write.
  return event.data as SessionEventData;
}
