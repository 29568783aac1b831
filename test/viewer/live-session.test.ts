// serveRunViewer following an agent session, which records no run.finished: a session in a final
// state is finished (its page is the offline page, a follower hears `finished: true` at once), an
// open or paused one is followed, one completed while followed tells its follower it has finished,
// and the list of runs shows a session's current state.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '@tot/core';
import { SessionEngine } from '@tot/core/sessions';
import { renderRunHtml, serveRunViewer } from '@tot/core/viewer';
import { collect } from '../helpers/collect.js';

async function session(store: InMemoryEventStore) {
  const s = await new SessionEngine({ store, writerId: 'w1' }).startSession({ goal: 'Cache loadConfig()' });
  await s.addThought({ role: 'planner', content: 'Cache it behind getConfig().' });
  return s;
}

const countOf = async (store: InMemoryEventStore, id: string) => (await collect(store.readStream(id))).length;

describe('serveRunViewer following an agent session', () => {
  it('tells a follower that a completed session has finished, though it has every event', async () => {
    const store = new InMemoryEventStore();
    const s = await session(store);
    await s.complete('done');
    const viewer = await serveRunViewer({ store, pollMs: 10, refreshMs: 0 });
    try {
      const events = await countOf(store, s.id);
      const body = await (await fetch(`${viewer.urlOf(s.id)}/events?after=${events}`)).text();
      expect(body).toContain(`data: {"events":${events},"finished":true}`);
    } finally {
      await viewer.close();
    }
  });

  it("serves a completed session's page as the offline page, with no live script", async () => {
    const store = new InMemoryEventStore();
    const s = await session(store);
    await s.fail('no branch validated');
    const viewer = await serveRunViewer({ store });
    try {
      const page = await (await fetch(viewer.urlOf(s.id))).text();
      expect(page).not.toContain('<meta name="tot-live"');
      expect(page).toBe(renderRunHtml(await collect(store.readStream(s.id))));
    } finally {
      await viewer.close();
    }
  });

  it('follows an open session: its page is the live page, and a follower hears its new events as not finished', async () => {
    const store = new InMemoryEventStore();
    const s = await session(store);
    const viewer = await serveRunViewer({ store, pollMs: 10, refreshMs: 0 });
    try {
      const before = await countOf(store, s.id);
      expect(await (await fetch(viewer.urlOf(s.id))).text()).toContain(`<meta name="tot-live" content="${before}">`);
      const follower = fetch(`${viewer.urlOf(s.id)}/events?after=${before}`).then((r) => r.text());
      await s.addThought({ role: 'critic', content: 'Two call sites reload on SIGHUP.' });
      expect(await follower).toContain(`data: {"events":${before + 1},"finished":false}`);
    } finally {
      await viewer.close();
    }
  });

  it('follows a paused session, which may be resumed: not finished', async () => {
    const store = new InMemoryEventStore();
    const s = await session(store);
    await s.pause('waiting for review');
    const viewer = await serveRunViewer({ store, pollMs: 10, refreshMs: 0 });
    try {
      const before = await countOf(store, s.id);
      expect(await (await fetch(viewer.urlOf(s.id))).text()).toContain(`<meta name="tot-live" content="${before}">`);
      const follower = fetch(`${viewer.urlOf(s.id)}/events?after=${before}`).then((r) => r.text());
      await s.resume();
      expect(await follower).toContain(`data: {"events":${before + 1},"finished":false}`);
    } finally {
      await viewer.close();
    }
  });

  it('tells a follower when the session it follows is completed', async () => {
    const store = new InMemoryEventStore();
    const s = await session(store);
    const viewer = await serveRunViewer({ store, pollMs: 10, refreshMs: 0 });
    try {
      const before = await countOf(store, s.id);
      const follower = fetch(`${viewer.urlOf(s.id)}/events?after=${before}`).then((r) => r.text());
      await s.complete('plan validated and executed');
      expect(await follower).toContain(`data: {"events":${before + 1},"finished":true}`);
    } finally {
      await viewer.close();
    }
  });

  it('lists a session with the state it is in now', async () => {
    const store = new InMemoryEventStore();
    const open = await session(store);
    const done = await session(store);
    await done.complete();
    const viewer = await serveRunViewer({ store });
    try {
      const list = await (await fetch(viewer.url)).text();
      const status = (id: string) => new RegExp(`>${id}</a></td><td>agent session</td><td>([^<]*)</td>`).exec(list)?.[1];
      expect(status(open.id)).toBe('active');
      expect(status(done.id)).toBe('completed');
    } finally {
      await viewer.close();
    }
  });
});
