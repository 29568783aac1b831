// The engine's names before 0.2.0 stay importable for one minor version, as the very same class:
// code written against 0.1 keeps working, and `instanceof` agrees whichever name made the object.
import { describe, expect, it } from 'vitest';
import * as core from '@tot/core';
import { GotEngine, GotSession, InMemoryEventStore } from '@tot/core';
import * as sessions from '@tot/core/sessions';
import { AgentSession, SessionEngine } from '@tot/core/sessions';

describe('the deprecated session names', () => {
  it('GotEngine is SessionEngine, from the root entry', () => {
    expect(GotEngine).toBe(SessionEngine);
  });

  it('GotSession is AgentSession, from the root entry', () => {
    expect(GotSession).toBe(AgentSession);
  });

  it('GotEngine and GotSession are also importable from @tot/core/sessions, as the same classes', () => {
    expect(sessions.GotEngine).toBe(SessionEngine);
    expect(sessions.GotSession).toBe(AgentSession);
  });

  it('a session started by an engine made as GotEngine is an AgentSession and a GotSession', async () => {
    const engine: GotEngine = new GotEngine({ store: new InMemoryEventStore() });
    const session: GotSession = await engine.startSession({ goal: 'keep the old names working' });
    expect(session).toBeInstanceOf(AgentSession);
    expect(session).toBeInstanceOf(GotSession);
    expect(engine).toBeInstanceOf(SessionEngine);
  });

  it('the root entry has no other Got-prefixed runtime value', () => {
    expect(Object.keys(core).filter((k) => k.startsWith('Got')).sort()).toEqual(['GotEngine', 'GotSession']);
  });
});
