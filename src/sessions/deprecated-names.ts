// The names of the session engine before 0.2.0, when it was the "GoT engine" and its module was
// one letter away from the operation graph's. Kept for one minor version so that code written
// against 0.1 keeps compiling; each alias is the very same class or type, so `instanceof` and
// stored sessions are unaffected.
import { AgentSession } from './agent-session.js';
import type { SessionEventData } from './session-events.js';
import { SessionEngine, type SessionEngineOptions } from './session-engine.js';
import type { SessionBranch, SessionEvidence, SessionThought } from './session-model.js';

/**
 * @deprecated Renamed to {@link SessionEngine}; this alias goes in 0.3.0.
 *
 * @example
 * ```ts
 * import { SessionEngine } from '@tot/core/sessions';
 * import { InMemoryEventStore } from '@tot/core';
 *
 * const engine = new SessionEngine({ store: new InMemoryEventStore() }); // was: new GotEngine(...)
 * ```
 */
export const GotEngine = SessionEngine;
/** @deprecated Renamed to {@link SessionEngine}; this alias goes in 0.3.0. */
export type GotEngine = SessionEngine;

/**
 * @deprecated Renamed to {@link AgentSession}; this alias goes in 0.3.0.
 *
 * @example
 * ```ts
 * import type { AgentSession } from '@tot/core/sessions';
 *
 * const goal = (s: AgentSession) => s.id; // was: (s: GotSession) => s.id
 * ```
 */
export const GotSession = AgentSession;
/** @deprecated Renamed to {@link AgentSession}; this alias goes in 0.3.0. */
export type GotSession = AgentSession;

/**
 * @deprecated Renamed to {@link SessionEngineOptions}; this alias goes in 0.3.0.
 *
 * @example
 * ```ts
 * import { InMemoryEventStore } from '@tot/core';
 * import type { SessionEngineOptions } from '@tot/core/sessions';
 *
 * const options: SessionEngineOptions = { store: new InMemoryEventStore() }; // was: GotEngineOptions
 * ```
 */
export type GotEngineOptions = SessionEngineOptions;
/**
 * @deprecated Renamed to {@link SessionThought}; this alias goes in 0.3.0.
 *
 * @example
 * ```ts
 * import type { SessionThought } from '@tot/core/sessions';
 *
 * const text = (t: SessionThought) => `${t.role}: ${t.content}`; // was: (t: GotThought)
 * ```
 */
export type GotThought = SessionThought;
/**
 * @deprecated Renamed to {@link SessionBranch}; this alias goes in 0.3.0.
 *
 * @example
 * ```ts
 * import type { SessionBranch } from '@tot/core/sessions';
 *
 * const label = (b: SessionBranch) => `${b.name} (${b.state})`; // was: (b: GotBranch)
 * ```
 */
export type GotBranch = SessionBranch;
/**
 * @deprecated Renamed to {@link SessionEvidence}; this alias goes in 0.3.0.
 *
 * @example
 * ```ts
 * import type { SessionEvidence } from '@tot/core/sessions';
 *
 * const ok = (e: SessionEvidence) => e.success; // was: (e: GotEvidence)
 * ```
 */
export type GotEvidence = SessionEvidence;
/**
 * @deprecated Renamed to {@link SessionEventData}; this alias goes in 0.3.0.
 *
 * @example
 * ```ts
 * import type { SessionEventData } from '@tot/core/sessions';
 *
 * const kind = (e: SessionEventData) => e.type; // was: (e: GotEventData)
 * ```
 */
export type GotEventData = SessionEventData;
