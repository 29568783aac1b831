import { describe, expect, it } from 'vitest';
import { RunEmitter, type RunEvent } from '../../src/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

class Runner extends RunEmitter {
  started(runId: string) {
    return this.emitEvent({ type: 'run.started', runId, problem: 'p' });
  }
  step(runId: string, depth: number) {
    return this.emitEvent({ type: 'search.step', runId, depth, frontier: [] });
  }
  finished(runId: string) {
    return this.emitEvent({ type: 'run.finished', runId, stopReason: 'solved' });
  }
}

describe('RunEmitter', () => {
  it('stamps each run with its own gapless sequence and the clock', () => {
    let t = 100;
    const runner = new Runner({ now: () => t++ });
    expect(runner.started('a')).toMatchObject({ seq: 0, at: 100 });
    expect(runner.started('b')).toMatchObject({ seq: 0, at: 101 });
    expect(runner.step('a', 1)).toMatchObject({ seq: 1, runId: 'a' });
    expect(runner.finished('a')).toMatchObject({ seq: 2 });
    expect(runner.started('a').seq).toBe(0);
  });

  it('emits each event under its type and under "event", with types that match', () => {
    const runner = new Runner();
    const steps: number[] = [];
    const all: string[] = [];
    runner.on('search.step', (e) => steps.push(e.depth));
    runner.on('event', (e) => all.push(e.type));
    runner.started('r');
    runner.step('r', 1);
    runner.finished('r');
    expect(steps).toEqual([1]);
    expect(all).toEqual(['run.started', 'search.step', 'run.finished']);
  });

  it('streams events in order and ends after run.finished', async () => {
    const runner = new Runner();
    const stream = runner.stream();
    runner.started('r');
    runner.step('r', 1);
    runner.finished('r');
    runner.started('after');
    const seen: RunEvent[] = [];
    for await (const event of stream) seen.push(event);
    expect(seen.map((e) => e.type)).toEqual(['run.started', 'search.step', 'run.finished']);
  });

  it('delivers events to a reader that is already waiting', async () => {
    const runner = new Runner();
    const iterator = runner.stream();
    const next = iterator.next();
    runner.started('r');
    expect((await next).value).toMatchObject({ type: 'run.started' });
  });

  it('filters by runId and stops at a custom condition', async () => {
    const runner = new Runner();
    const stream = runner.stream({ runId: 'b', until: (e) => e.type === 'search.step' });
    runner.started('a');
    runner.started('b');
    runner.step('a', 1);
    runner.step('b', 2);
    runner.step('b', 3);
    const seen: string[] = [];
    for await (const event of stream) seen.push(`${event.runId}:${event.type}`);
    expect(seen).toEqual(['b:run.started', 'b:search.step']);
  });

  it('rejects a waiting reader with ABORTED when the signal fires', async () => {
    const runner = new Runner();
    const controller = new AbortController();
    const iterator = runner.stream({ signal: controller.signal });
    const next = iterator.next();
    controller.abort();
    await catchTotError(() => next, 'ABORTED');
    expect(runner.listenerCount('event')).toBe(0);
  });

  it('unsubscribes when the reader breaks out', async () => {
    const runner = new Runner();
    const stream = runner.stream();
    runner.started('r');
    runner.step('r', 1);
    for await (const event of stream) {
      expect(event.type).toBe('run.started');
      break;
    }
    expect(runner.listenerCount('event')).toBe(0);
  });

  it('validates stream options', async () => {
    await catchTotError(() => new Runner().stream({ signal: 'nope' as never }), 'INVALID_ARGUMENT');
  });
});
