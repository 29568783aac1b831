// serveRunViewer without a browser: the page of a run still going is the live page (its CSP lets
// it ask its own origin, nothing else), a follower hears of new events, an unknown run is a 404,
// bad options are refused, and the signal closes the server.
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '@tot/core';
import { renderRunHtml, serveRunViewer } from '@tot/core/viewer';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { collect } from '../helpers/collect.js';
import { askingExplorer } from './fixtures/runs.js';

const started = { type: 'run.started', data: { type: 'run.started', runId: 'r1', seq: 0, at: 1, runner: 'chain-of-thought', problem: 'What is 2 + 2?', config: {} }, idempotencyKey: 'k0' };
const finished = { type: 'run.finished', data: { type: 'run.finished', runId: 'r1', seq: 1, at: 2, stopReason: 'completed', stats: {}, errors: [] }, idempotencyKey: 'k1' };

describe('serveRunViewer', () => {
  it('serves a run still going as the live page: its own script may ask its own origin, and nothing else', async () => {
    const store = new InMemoryEventStore();
    await store.append('r1', [started], { expectedVersion: 'no_stream' });
    const viewer = await serveRunViewer({ store });
    try {
      const page = await (await fetch(viewer.urlOf('r1'))).text();
      const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(page)![1]!;
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page).toContain('<meta name="tot-live" content="1">');
    } finally {
      await viewer.close();
    }
  });

  it('tells a follower when the run has new events, and serves the finished run as the offline page', async () => {
    const store = new InMemoryEventStore();
    await store.append('r1', [started], { expectedVersion: 'no_stream' });
    const viewer = await serveRunViewer({ store, pollMs: 10, refreshMs: 0 });
    try {
      const follower = fetch(`${viewer.urlOf('r1')}/events?after=1`).then((r) => r.text());
      await store.append('r1', [finished], { expectedVersion: 0 });
      expect(await follower).toContain('data: {"events":2,"finished":true}');
      expect(await (await fetch(viewer.urlOf('r1'))).text()).toBe(renderRunHtml(await collect(store.readStream('r1'))));
    } finally {
      await viewer.close();
    }
  });

  it('lists a run waiting for answers as waiting, and a run resumed with them by the stop reason of its last run.finished', async () => {
    const store = new InMemoryEventStore();
    await askingExplorer().run('p', { store, runId: 'waits' });
    await askingExplorer().run('p', { store, runId: 'answered' });
    await askingExplorer().resume({ store, runId: 'answered', answers: { 'strategy/ask-twice#pick': 0 } });
    await askingExplorer().resume({ store, runId: 'answered', answers: { 'strategy/ask-twice#deeper': false } });
    const viewer = await serveRunViewer({ store });
    try {
      const list = await (await fetch(viewer.url)).text();
      const status = (id: string) => new RegExp(`>${id}</a></td><td>search</td><td>([^<]*)</td>`).exec(list)?.[1];
      expect(status('waits')).toBe('waiting for an answer');
      expect(status('answered')).toBe('max_depth');
    } finally {
      await viewer.close();
    }
  });

  it('follows a run waiting for answers: its page is the live page, and a follower hears that it has not finished', async () => {
    const store = new InMemoryEventStore();
    await askingExplorer().run('p', { store, runId: 'waits' });
    const viewer = await serveRunViewer({ store, pollMs: 10, refreshMs: 0 });
    try {
      const before = (await collect(store.readStream('waits'))).length;
      expect(await (await fetch(viewer.urlOf('waits'))).text()).toContain(`<meta name="tot-live" content="${before}">`);
      const follower = fetch(`${viewer.urlOf('waits')}/events?after=${before}`).then((r) => r.text());
      await askingExplorer().resume({ store, runId: 'waits', answers: { 'strategy/ask-twice#pick': 0 } });
      const after = (await collect(store.readStream('waits'))).length;
      expect(await follower).toContain(`data: {"events":${after},"finished":false}`);
    } finally {
      await viewer.close();
    }
  });

  it('answers 404 for a run the store does not have', async () => {
    const viewer = await serveRunViewer({ store: new InMemoryEventStore() });
    try {
      expect((await fetch(viewer.urlOf('nope'))).status).toBe(404);
    } finally {
      await viewer.close();
    }
  });

  it('refuses a misspelt option with INVALID_ARGUMENT', async () => {
    const error = await catchTotError(() => serveRunViewer({ store: new InMemoryEventStore(), pollMS: 10 } as never), 'INVALID_ARGUMENT');
    expect(error.message).toContain('pollMS');
  });

  it('closes when its signal aborts', async () => {
    const controller = new AbortController();
    const viewer = await serveRunViewer({ store: new InMemoryEventStore(), signal: controller.signal });
    expect((await fetch(viewer.url)).status).toBe(200);
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(fetch(viewer.url)).rejects.toThrow();
  });
});
