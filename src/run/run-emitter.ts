import { EventEmitter } from 'eventemitter3';
import { z } from 'zod';
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

const streamOptionsSchema = z.object({
  runId: z.string().optional(),
  until: fnSchema<(event: RunEventBase) => boolean>().optional(),
  signal: signalSchema,
});

/** The kernel's way in: runners never stamp or publish events themselves. */
export const publishEvent: unique symbol = Symbol('tot.run.publish');

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
  // The events of every run in progress, by run id, dropped when the run finishes.
  private readonly live = new Map<string, E[]>();
  private latest: string | undefined;

  /**
   * Publishes a stamped event: to the run's buffer, then to listeners of its type and of
   * `event`. Returns the errors listeners threw (a listener never stops the run).
   */
  [publishEvent](event: E): unknown[] | undefined {
    let buffer = this.live.get(event.runId);
    if (buffer === undefined) {
      buffer = [];
      this.live.set(event.runId, buffer);
      this.latest = event.runId;
    }
    buffer.push(event);
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
    if (event.type === 'run.finished') {
      this.live.delete(event.runId);
      if (this.latest === event.runId) this.latest = undefined;
    }
    return failures;
  }

  /**
   * The events of one run as an async iterable, from its `run.started` on, whenever during the
   * run it is called. Without `runId` it follows the run most recently started and still in
   * progress, or else the next run to start. It ends after `run.finished` (or `until`) and
   * rejects with `ABORTED` when `signal` aborts. Events are buffered until read, so a slow reader
   * misses nothing; breaking out of the loop unsubscribes.
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
      if (past) for (const event of past) if (!ended) deliver(event);
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
