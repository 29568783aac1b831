import { z } from 'zod';
import { TotError } from '../errors/index.js';
import type { EventStore } from '../events/store/types.js';
import { DEFAULT_MAX_EVENT_BYTES } from '../events/store/validate-append.js';
import { throwIfAborted } from '../internal/abort.js';
import { compileSafeParse } from '../internal/fast-check.js';
import { randomHex } from '../internal/hex.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import { languageModelSchema } from '../model/schemas.js';
import type { LanguageModel } from '../model/types.js';
import type { SessionBudget } from './session-events.js';
import { AgentSession, type SessionContext } from './agent-session.js';
import type { ParallelEvent } from './parallel-events.js';
import { RunEmitter } from '../run/run-emitter.js';
import { SessionModel, sessionSnapshotSchema, type SessionSnapshot } from './session-model.js';
import type { SessionState } from './session-state.js';

/**
 * Options of {@link SessionEngine}.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore } from '@tot/core';
 * import type { SessionEngineOptions } from '@tot/core/sessions';
 *
 * const options: SessionEngineOptions = { store: new InMemoryEventStore(), limits: { maxThoughtChars: 400 }, checkpointEvery: { events: 100, ms: 300_000 } };
 * ```
 */
export interface SessionEngineOptions {
  /** Where sessions live: one stream per session. */
  store: EventStore;
  /** The model the engine's own LLM-backed parts use. */
  model?: LanguageModel;
  limits?: {
    /** Characters a thought may have. Default 400. */
    maxThoughtChars?: number;
    /** Tokens a digest may have. Default 200. */
    digestTokens?: number;
    /**
     * Bytes a branch's plan may have, as JSON. Default 1 MiB, the stores' default largest event
     * (raise both together). A plan over it is refused before anything is written.
     */
    maxPlanBytes?: number;
  };
  /**
   * Automatic checkpoints: after this many milliseconds, or after this many events or as many events
   * as the last checkpoint holds, whichever is more, since the last. Default 100 events, 5 minutes.
   */
  checkpointEvery?: { events?: number; ms?: number };
  /** This writer's name in vector clocks. Default `w_` and 8 random hex characters. */
  writerId?: string;
  /** Clock. Default `Date.now`. */
  now?: () => number;
}

/**
 * Options of {@link SessionEngine.startSession}.
 *
 * @example
 * ```ts
 * import type { StartSessionOptions } from '@tot/core/sessions';
 *
 * const options: StartSessionOptions = { goal: 'Speed up config loading', successCriteria: ['p95 under 5 ms'], budget: { maxTokens: 5000, maxMs: 600_000, maxBranches: 5 } };
 * ```
 */
export interface StartSessionOptions {
  goal: string;
  successCriteria?: string[];
  budget?: SessionBudget;
  /** Default `sess_<uuid>`. */
  id?: string;
  /**
   * Stores the session's start with its first write, in the same append, instead of at once: one
   * committed write fewer for a caller that writes straight away (the `sequentialthinking` tool
   * starts a session for a thought and stores both together). Until that write the store holds no
   * such session, so the id is not to be handed out before it. Only with a generated `id`. Default false.
   */
  deferStart?: boolean;
  signal?: AbortSignal;
}

const optionsSchema = z.strictObject({
  store: z.custom<EventStore>((v) => typeof v === 'object' && v !== null && typeof (v as EventStore).append === 'function' && typeof (v as EventStore).readStream === 'function', 'expected an EventStore'),
  model: languageModelSchema.optional(),
  limits: z
    .strictObject({ maxThoughtChars: z.number().int().positive().default(400), digestTokens: z.number().int().positive().default(200), maxPlanBytes: z.number().int().positive().default(DEFAULT_MAX_EVENT_BYTES) })
    .default({ maxThoughtChars: 400, digestTokens: 200, maxPlanBytes: DEFAULT_MAX_EVENT_BYTES }),
  checkpointEvery: z.strictObject({ events: z.number().int().positive().default(100), ms: z.number().positive().default(300_000) }).default({ events: 100, ms: 300_000 }),
  writerId: z.string().min(1).max(64).optional(),
  now: fnSchema<() => number>().optional(),
});

const restoreSchema = z.strictObject({ signal: signalSchema });
const startSchema = z.strictObject({
  goal: z.string().min(1),
  successCriteria: z.array(z.string().min(1)).default([]),
  budget: z.strictObject({ maxTokens: z.number().int().positive().optional(), maxMs: z.number().positive().optional(), maxBranches: z.number().int().positive().optional() }).default({}),
  id: z.string().regex(/^[\w.:-]{1,200}$/).optional(),
  deferStart: z.boolean().optional(),
  signal: signalSchema,
});


/**
 * The session engine: sessions with hard budgets whose every change is an
 * event in the session's stream of an {@link EventStore}, so that a session survives its process
 * and several processes can drive one session through SQLite or PostgreSQL. The engine never
 * executes anything: it records thoughts and branches, schedules them (`runParallel`), scores and
 * validates their plans, and hands validated plans over with the evidence that comes back. It is
 * a run emitter: `engine.on(...)`/`stream()` give the events of its `runParallel` runs.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore } from '@tot/core';
 * import { SessionEngine } from '@tot/core/sessions';
 *
 * const engine = new SessionEngine({ store: new InMemoryEventStore() });
 * const session = await engine.startSession({ goal: 'Plan the migration', budget: { maxTokens: 5000, maxBranches: 5 } });
 * await session.addThought({ role: 'planner', content: 'Move the reads first, then the writes.' });
 * const again = await engine.restore(session.id); // latest checkpoint + the events after it
 * ```
 */
export class SessionEngine extends RunEmitter<ParallelEvent> {
  /** This writer's name in vector clocks. */
  readonly writerId: string;
  private readonly o: z.output<typeof optionsSchema>;
  private readonly ctx: SessionContext;

  constructor(options: SessionEngineOptions) {
    super();
    this.o = parseOptions(optionsSchema, options, 'SessionEngine');
    this.writerId = this.o.writerId ?? `w_${randomHex(4)}`;
    this.ctx = { store: this.o.store, emitter: this, model: this.o.model, digestTokens: this.o.limits.digestTokens, maxPlanBytes: this.o.limits.maxPlanBytes, writer: this.writerId, now: this.o.now ?? Date.now, checkpointEvery: this.o.checkpointEvery };
  }

  /**
   * Starts a session: its first event. The session comes back `active`: the
   * state machine's `init` is the session before its `session.started` event is stored, and no caller ever
   * holds a session then (see {@link SessionState}).
   *
   * @example
   * ```ts
   * const s = await engine.startSession({ goal, successCriteria: ['tests pass'], budget: { maxTokens: 5000, maxMs: 600_000, maxBranches: 5 } });
   * ```
   */
  async startSession(options: StartSessionOptions): Promise<AgentSession> {
    const o = parseOptions(startSchema, options, 'SessionEngine.startSession');
    throwIfAborted(o.signal, 'session start');
    const id = o.id ?? `sess_${globalThis.crypto.randomUUID()}`;
    const data = { sessionId: id, goal: o.goal, successCriteria: o.successCriteria, budget: o.budget, maxThoughtChars: this.o.limits.maxThoughtChars, at: this.ctx.now() };
    // A key of this call's own: a second start under the same id, however alike, is refused by the
    // store (the stream exists), not taken for a retry of the first.
    const key = `${id}:session:start:${globalThis.crypto.randomUUID()}`;
    if (o.deferStart) {
      if (o.id !== undefined) throw new TotError('INVALID_ARGUMENT', 'SessionEngine.startSession: options.deferStart: a deferred start takes the id the engine makes: leave options.id out.', { details: { field: 'options.deferStart' } });
      const start = { type: 'session.started', data, idempotencyKey: key };
      return new AgentSession(this.ctx, SessionModel.start(id, { ...start, version: 0 }), 0, start);
    }
    let appended;
    try {
      appended = await this.o.store.append(id, [{ type: 'session.started', data, idempotencyKey: key }], { expectedVersion: 'no_stream', ...(o.signal ? { signal: o.signal } : {}) });
    } catch (error) {
      if (!TotError.hasCode(error, 'EXPECTED_VERSION_CONFLICT')) throw error;
      throw new TotError('EXPECTED_VERSION_CONFLICT', `SessionEngine.startSession: options.id: the store already holds a session "${id}": restore() it, or start one under another id.`, { details: error.details, cause: error });
    }
    // No checkpoint of the start: it would hold the one event a restore folds as quickly, and cost
    // every session a second write (on SQLite, a second committed transaction). The automatic
    // checkpoints count from here, as from a checkpoint at version 0: the first comes at 100.
    return new AgentSession(this.ctx, SessionModel.start(id, appended.events[0]!), 0);
  }

  /**
   * A session as its store holds it: the latest checkpoint, then the events after it (the same
   * state as the live session that wrote them). `INVALID_ARGUMENT` when the store has no such
   * session, `INVALID_FORMAT` (with the version) when its stream is corrupt.
   *
   * @example
   * ```ts
   * const session = await engine.restore('sess_0190…');
   * ```
   */
  async restore(sessionId: string, options: { signal?: AbortSignal } = {}): Promise<AgentSession> {
    parseOptions(restoreSchema, options, 'SessionEngine.restore');
    throwIfAborted(options.signal, 'session restore');
    const snapshot = await this.o.store.loadSnapshot(sessionId);
    let model: SessionModel | undefined;
    let from = 0;
    // A checkpoint is used only when it is whole and this session's; else the stream is folded from its start.
    const usable = snapshot !== null && snapshot !== undefined && isWholeSnapshot(snapshot.state);
    const state = usable ? (snapshot.state as SessionSnapshot) : undefined;
    if (snapshot && state && state.id === sessionId && state.version === snapshot.version) {
      model = SessionModel.fromSnapshot(state);
      from = snapshot.version + 1;
    }
    for await (const e of this.o.store.readStream(sessionId, { fromVersion: from })) {
      throwIfAborted(options.signal, 'session restore');
      if (model) model.apply(e);
      else model = SessionModel.start(sessionId, e);
    }
    if (!model) throw new TotError('INVALID_ARGUMENT', `No session "${sessionId}" in the store.`, { details: { field: 'sessionId' } });
    return new AgentSession(this.ctx, model, snapshot && from > 0 ? snapshot.version : -1);
  }
}

// Compiled from the schema: checking a 10,000-thought checkpoint through zod itself took about as
// long as folding the events it saves reading (the restore benchmark).
const isWholeSnapshot = (() => {
  const check = compileSafeParse(sessionSnapshotSchema);
  return (value: unknown) => check(value).success;
})();
