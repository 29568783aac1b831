import { describe, expect, it } from 'vitest';
import { RunEmitter, type RunEventBase } from '../../src/index.js';
import { publishEvent, STREAM_HISTORY_LIMIT } from '../../src/run/run-emitter.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

type E = (RunEventBase & { type: 'run.started' | 'run.finished'; n?: undefined }) | (RunEventBase & { type: 'step'; n?: number });

/** A runner whose events are published the way the run kernel publishes them. */
class Runner extends RunEmitter<E> {
  private seq = new Map<string, number>();
  publish(runId: string, type: E['type'], n?: number): E {
    const seq = this.seq.get(runId) ?? 0;
    this.seq.set(runId, seq + 1);
    const event = { type, runId, seq, at: 0, ...(n === undefined ? {} : { n }) } as E;
    this[publishEvent](event);
    return event;
  }
}

const read = async (stream: AsyncIterable<E>) => {
  const seen: string[] = [];
  for await (const e of stream) seen.push(`${e.runId}:${e.type}${e.n === undefined ? '' : e.n}`);
  return seen;
};

describe('RunEmitter', () => {
  it('emits each event under its type and under "event"', () => {
    const runner = new Runner();
    const steps: number[] = [];
    const all: string[] = [];
    runner.on('step', (e) => steps.push(e.n!));
    runner.on('event', (e) => all.push(e.type));
    runner.publish('r', 'run.started');
    runner.publish('r', 'step', 1);
    runner.publish('r', 'run.finished');
    expect(steps).toEqual([1]);
    expect(all).toEqual(['run.started', 'step', 'run.finished']);
  });

  it('streams a run from run.started even when the stream is opened after the run began', async () => {
    const runner = new Runner();
    runner.publish('r', 'run.started');
    runner.publish('r', 'step', 1);
    const stream = runner.stream();
    runner.publish('r', 'step', 2);
    runner.publish('r', 'run.finished');
    expect(await read(stream)).toEqual(['r:run.started', 'r:step1', 'r:step2', 'r:run.finished']);
  });

  it('without a run in progress, follows the next run to start, and only that run', async () => {
    const runner = new Runner();
    const stream = runner.stream();
    runner.publish('a', 'run.started');
    runner.publish('b', 'run.started');
    runner.publish('a', 'step', 1);
    runner.publish('b', 'run.finished');
    runner.publish('a', 'run.finished');
    expect(await read(stream)).toEqual(['a:run.started', 'a:step1', 'a:run.finished']);
  });

  it('follows the most recently started run in progress', async () => {
    const runner = new Runner();
    runner.publish('a', 'run.started');
    runner.publish('b', 'run.started');
    const stream = runner.stream();
    runner.publish('a', 'run.finished');
    runner.publish('b', 'run.finished');
    expect(await read(stream)).toEqual(['b:run.started', 'b:run.finished']);
  });

  it('filters by runId and stops at a custom condition, also within the buffered start', async () => {
    const runner = new Runner();
    runner.publish('b', 'run.started');
    runner.publish('b', 'step', 1);
    const stream = runner.stream({ runId: 'b', until: (e) => e.type === 'step' });
    runner.publish('b', 'step', 2);
    expect(await read(stream)).toEqual(['b:run.started', 'b:step1']);
    expect(runner.listenerCount('event')).toBe(0);
  });

  it('forgets a run once it has finished', async () => {
    const runner = new Runner();
    runner.publish('r', 'run.started');
    runner.publish('r', 'run.finished');
    const stream = runner.stream({ runId: 'r' });
    runner.publish('r', 'run.started');
    runner.publish('r', 'run.finished');
    // The stream of a finished run id waits for that id to run again.
    expect(await read(stream)).toEqual(['r:run.started', 'r:run.finished']);
  });

  it('keeps every event for a slow reader of a long run', async () => {
    const runner = new Runner();
    const stream = runner.stream();
    runner.publish('r', 'run.started');
    for (let i = 0; i < 20_000; i++) runner.publish('r', 'step', i);
    runner.publish('r', 'run.finished');
    const seen = await read(stream);
    expect(seen).toHaveLength(20_002);
    expect(seen[20_000]).toBe('r:step19999');
  });

  it('serves a late stream the whole run up to 10,000 events, and refuses one opened later rather than skip events', async () => {
    const runner = new Runner();
    runner.publish('r', 'run.started');
    for (let i = 1; i < STREAM_HISTORY_LIMIT; i++) runner.publish('r', 'step', i);
    const late = runner.stream();
    runner.publish('r', 'step', STREAM_HISTORY_LIMIT);
    const tooLate = runner.stream();
    runner.publish('r', 'run.finished');
    expect(await read(late)).toHaveLength(STREAM_HISTORY_LIMIT + 2);
    const error = await catchTotError(() => read(tooLate), 'ILLEGAL_STATE');
    expect(error.message).toContain('no longer keeps them');
  });

  it('delivers events to a reader that is already waiting', async () => {
    const runner = new Runner();
    const iterator = runner.stream();
    const next = iterator.next();
    runner.publish('r', 'run.started');
    expect((await next).value).toMatchObject({ type: 'run.started' });
  });

  it('rejects a waiting reader with ABORTED when the signal fires, and unsubscribes', async () => {
    const runner = new Runner();
    const controller = new AbortController();
    const iterator = runner.stream({ signal: controller.signal });
    const next = iterator.next();
    controller.abort(new Error('client went away'));
    const error = await catchTotError(() => next, 'ABORTED');
    expect(error.cause).toMatchObject({ message: 'client went away' });
    expect(runner.listenerCount('event')).toBe(0);
  });

  it('unsubscribes when the reader breaks out', async () => {
    const runner = new Runner();
    const stream = runner.stream();
    runner.publish('r', 'run.started');
    runner.publish('r', 'step', 1);
    for await (const event of stream) {
      expect(event.type).toBe('run.started');
      break;
    }
    expect(runner.listenerCount('event')).toBe(0);
  });

  it('reports a throwing listener without skipping the other listeners', () => {
    const runner = new Runner();
    const seen: string[] = [];
    runner.on('step', () => {
      throw new Error('listener bug');
    });
    runner.on('event', (e) => seen.push(e.type));
    runner.publish('r', 'run.started');
    const failures = runner[publishEvent]({ type: 'step', runId: 'r', seq: 1, at: 0 });
    expect(failures).toHaveLength(1);
    expect(seen).toEqual(['run.started', 'step']);
  });

  it('validates stream options', async () => {
    await catchTotError(() => new Runner().stream({ signal: 'nope' as never }), 'INVALID_ARGUMENT');
  });
});
