import { EventEmitter } from 'eventemitter3';
import { z } from 'zod';
import { TotError } from '../errors/index.js';
import { abortedError, whenAborted } from '../internal/abort.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import type { RunEvent, RunEventBase, RunEventMap } from './run-event.js';

/**
 * Options of {@link RunEmitter.stream}.
 *
 * @example
 * ```ts
 * import type { RunEvent, StreamOptions } from '@tot/core';
 *
 * const options: StreamOptions<RunEvent> = { runId: 'run-1', until: (e) => e.type === 'run.finished' };
 * ```
 */
export interface StreamOptions<E extends RunEventBase> {
  /** The run to follow. Default: the run most recently started and still in progress, else the next one to start. */
  runId?: string;
  /** The stream ends after the first event for which this returns true. Default: after `run.finished`. */
  until?: (event: E) => boolean;
  /** Aborting ends the stream with an `ABORTED` error. */
  signal?: AbortSignal;
}

const streamOptionsSchema = z.strictObject({
  runId: z.string().optional(),
  until: fnSchema<(event: RunEventBase) => boolean>().optional(),
  signal: signalSchema,
});

/** The kernel's way in: runners never stamp or publish events themselves. */
export const publishEvent: unique symbol = Symbol('tot.run.publish');

/**
 * Events of a run in progress kept for a `stream()` opened late. Enough for the whole of a typical
 * run (a search of a thousand nodes emits about five thousand); a run that goes on past it stops
 * keeping them, so that a long run never holds its whole history in memory (keeping every event
 * of a 111,111-node search cost a third of its framework time in garbage collection).
 */
export const STREAM_HISTORY_LIMIT = 10_000;

/** A run's kept events: `undefined` once it emitted more than {@link STREAM_HISTORY_LIMIT} of them. */
type History<E> = { events: E[] | undefined };

/**
 * The base of every runner: typed events through eventemitter3 (one event name per event type,
 * plus `event` for all of them) and the same events as an async iterable through
 * {@link RunEmitter.stream}. Events are stamped and published by the run kernel; a run in
 * progress keeps its events so that a stream opened at any time during the run starts from
 * `run.started`.
 *
 * @example
 * ```ts
 * import { Explorer } from '@tot/core';
 *
 * const explorer = new Explorer({ generator, evaluator });
 * explorer.on('node.evaluated', (e) => console.log(e.nodeId, e.evaluation.score));
 * explorer.on('event', (e) => log.debug(e.type, e.seq));
 * ```
 */
export class RunEmitter<E extends RunEventBase = RunEvent> extends EventEmitter<RunEventMap<E>> {
  // The kept events of every run in progress, by run id, dropped when the run finishes.
  private readonly live = new Map<string, History<E>>();
  private latest: string | undefined;
  // The run of the last event: most events follow one of the same run.
  private lastRunId: string | undefined;
  private lastHistory: History<E> | undefined;

  /**
   * Publishes a stamped event: to the run's buffer, then to listeners of its type and of
   * `event`. Returns the errors listeners threw (a listener never stops the run).
   */
  [publishEvent](event: E): unknown[] | undefined {
    let history = event.runId === this.lastRunId ? this.lastHistory : this.live.get(event.runId);
    if (history === undefined) {
      history = { events: [] };
      this.live.set(event.runId, history);
      this.latest = event.runId;
    }
    this.lastRunId = event.runId;
    this.lastHistory = history;
    const kept = history.events;
    if (kept !== undefined) {
      if (kept.length < STREAM_HISTORY_LIMIT) kept.push(event);
      else history.events = undefined;
    }
    // Nobody listening (eventemitter3 counts the event names listened to): nothing to call. A search
    // publishes about five events per node, most often to no listener.
    if ((this as unknown as { _eventsCount?: unknown })._eventsCount === 0) {
      if (event.type === 'run.finished') this.forget(event.runId);
      return undefined;
    }
    let failures: unknown[] | undefined;
    const emit = this.emit as (name: string, payload: E) => boolean;
    try {
      emit.call(this, event.type, event);
    } catch (error) {
      (failures ??= []).push(error);
    }
    try {
      emit.call(this, 'event', event);
    } catch (error) {
      (failures ??= []).push(error);
    }
    if (event.type === 'run.finished') this.forget(event.runId);
    return failures;
  }

  /** A finished run's kept events go. */
  private forget(runId: string): void {
    this.live.delete(runId);
    if (this.latest === runId) this.latest = undefined;
    this.lastRunId = undefined;
    this.lastHistory = undefined;
  }

  /**
   * The events of one run as an async iterable, from its `run.started` on, whenever during the
   * run it is called. Without `runId` it follows the run most recently started and still in
   * progress, or else the next run to start. It ends after `run.finished` (or `until`) and
   * rejects with `ABORTED` when `signal` aborts. Events are buffered until read, so a slow reader
   * misses nothing; breaking out of the loop unsubscribes.
   *
   * A run keeps its first 10,000 events for streams opened late; a stream
   * opened after a run emitted more rejects with `ILLEGAL_STATE` rather than skip events. Open it
   * before or right after `run()`, or read a recorded run from its store.
   *
   * @example
   * ```ts
   * const done = explorer.run(problem);
   * for await (const event of explorer.stream()) {
   *   if (event.type === 'node.evaluated') console.log(event.nodeId, event.evaluation.score);
   * }
   * await done;
   * ```
   */
  stream(options: StreamOptions<E> = {}): AsyncIterableIterator<E> {
    const o = parseOptions(streamOptionsSchema, options, 'stream');
    const until = options.until ?? ((e: E) => e.type === 'run.finished');
    const { signal } = o;
    let target = o.runId ?? (this.latest !== undefined && this.live.has(this.latest) ? this.latest : undefined);
    // Generic E hides that 'event' is always a key of RunEventMap<E>.
    const events = this as unknown as EventEmitter<{ event: [E] }>;
    // A queue read from `head`: a late reader of a long run takes thousands of buffered events.
    const buffer: E[] = [];
    let head = 0;
    let waiting: { resolve: (r: IteratorResult<E>) => void; reject: (e: unknown) => void } | undefined;
    let ended = false;
    let failure: unknown;
    let cancelAbort: (() => void) | undefined;

    const finish = () => {
      if (ended) return;
      ended = true;
      events.off('event', listener);
      cancelAbort?.();
    };
    const deliver = (event: E) => {
      const last = until(event);
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w.resolve({ value: event, done: false });
      } else buffer.push(event);
      if (last) finish();
    };
    const listener = (event: E) => {
      if (ended) return;
      if (target === undefined) {
        if (event.type !== 'run.started') return;
        target = event.runId;
      }
      if (event.runId === target) deliver(event);
    };

    if (signal?.aborted) {
      failure = abortedError(signal, 'event stream');
      ended = true;
    } else {
      const past = target === undefined ? undefined : this.live.get(target);
      if (past && past.events === undefined) {
        failure = new TotError('ILLEGAL_STATE', `Run "${target}" has emitted more than ${STREAM_HISTORY_LIMIT} events and no longer keeps them: open stream() before or right after run(), or read the run from its store.`, { details: {} });
        ended = true;
      } else if (past?.events) for (const event of past.events) if (!ended) deliver(event);
      if (!ended) {
        events.on('event', listener);
        if (signal) {
          cancelAbort = whenAborted(signal, () => {
            failure = abortedError(signal, 'event stream');
            finish();
            if (waiting) {
              const w = waiting;
              waiting = undefined;
              w.reject(failure);
            }
          });
        }
      }
    }

    const iterator: AsyncIterableIterator<E> = {
      next: () => {
        if (head < buffer.length) {
          const value = buffer[head]!;
          buffer[head++] = undefined as unknown as E;
          if (head === buffer.length) buffer.length = head = 0;
          return Promise.resolve({ value, done: false });
        }
        if (failure !== undefined) return Promise.reject(failure);
        if (ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          waiting = { resolve, reject };
        });
      },
      return: () => {
        finish();
        buffer.length = head = 0;
        if (waiting) {
          waiting.resolve({ value: undefined, done: true });
          waiting = undefined;
        }
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }
}
