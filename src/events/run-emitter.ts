import { EventEmitter } from 'eventemitter3';
import { z } from 'zod';
import { abortedError } from '../internal/abort.js';
import { fnSchema, parseOptions, signalSchema } from '../internal/validate.js';
import type { RunEvent, RunEventBase, RunEventInput, RunEventMap } from './run-event.js';

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
  /** Only events of this run. Default: every run. */
  runId?: string;
  /** The stream ends after the first event for which this returns true. Default: after `run.finished`. */
  until?: (event: E) => boolean;
  /** Aborting ends the stream with an `ABORTED` error. */
  signal?: AbortSignal;
}

/**
 * Options of {@link RunEmitter}.
 *
 * @example
 * ```ts
 * import type { RunEmitterOptions } from '@tot/core';
 *
 * let t = 0;
 * const options: RunEmitterOptions = { now: () => t++ }; // deterministic timestamps in tests
 * ```
 */
export interface RunEmitterOptions {
  /** Clock for `at`, in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

const streamOptionsSchema = z.object({
  runId: z.string().optional(),
  until: fnSchema<(event: RunEventBase) => boolean>().optional(),
  signal: signalSchema,
});

/**
 * The base of every runner: a typed eventemitter3 emitter (one event name per event type, plus
 * `event` for all of them) that stamps each event with its run's next `seq` and the time, and
 * offers the same events as an async iterable through {@link RunEmitter.stream}.
 *
 * @example
 * ```ts
 * import { RunEmitter } from '@tot/core';
 *
 * class Greeter extends RunEmitter {
 *   async run(name: string) {
 *     const runId = `greet-${name}`;
 *     this.emitEvent({ type: 'run.started', runId, problem: name });
 *     this.emitEvent({ type: 'run.finished', runId, stopReason: 'done' });
 *   }
 * }
 * const g = new Greeter();
 * g.on('run.finished', (e) => console.log(e.stopReason));
 * ```
 */
export class RunEmitter<E extends RunEventBase = RunEvent> extends EventEmitter<RunEventMap<E>> {
  private readonly sequences = new Map<string, number>();
  private readonly clock: () => number;

  constructor(options: RunEmitterOptions = {}) {
    super();
    this.clock = options.now ?? Date.now;
  }

  /**
   * Stamps `event` with `seq` and `at`, emits it under its type and under `event`, and returns it.
   * A `run.finished` event closes the run's sequence.
   *
   * @example
   * ```ts
   * import { RunEmitter } from '@tot/core';
   *
   * class Runner extends RunEmitter {
   *   step(runId: string) {
   *     return this.emitEvent({ type: 'search.step', runId, depth: 1, frontier: [] }).seq;
   *   }
   * }
   * ```
   */
  protected emitEvent(event: RunEventInput<E>): E {
    const seq = this.sequences.get(event.runId) ?? 0;
    const stamped = { ...event, seq, at: this.clock() } as unknown as E;
    if (stamped.type === 'run.finished') this.sequences.delete(event.runId);
    else this.sequences.set(event.runId, seq + 1);
    const emit = this.emit.bind(this) as (name: string, payload: E) => boolean;
    emit(stamped.type, stamped);
    emit('event', stamped);
    return stamped;
  }

  /**
   * The events emitted from now on, as an async iterable. It ends after `run.finished` (or
   * `until`), and rejects with `ABORTED` when `signal` aborts. Events are buffered until read, so
   * a slow reader misses nothing. Breaking out of the loop unsubscribes.
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
    const { signal, runId } = o;
    // Generic E hides that 'event' is always a key of RunEventMap<E>.
    const events = this as unknown as EventEmitter<{ event: [E] }>;
    const buffer: E[] = [];
    let waiting: { resolve: (r: IteratorResult<E>) => void; reject: (e: unknown) => void } | undefined;
    let ended = false;
    let failure: unknown;

    const finish = () => {
      if (ended) return;
      ended = true;
      events.off('event', listener);
      signal?.removeEventListener('abort', onAbort);
    };
    const listener = (event: E) => {
      if (ended || (runId !== undefined && event.runId !== runId)) return;
      const last = until(event);
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w.resolve({ value: event, done: false });
      } else buffer.push(event);
      if (last) finish();
    };
    const onAbort = () => {
      failure = abortedError(signal, 'event stream');
      finish();
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w.reject(failure);
      }
    };
    if (signal?.aborted) onAbort();
    else {
      events.on('event', listener);
      signal?.addEventListener('abort', onAbort, { once: true });
    }

    const iterator: AsyncIterableIterator<E> = {
      next: () => {
        if (buffer.length > 0) return Promise.resolve({ value: buffer.shift()!, done: false });
        if (failure !== undefined) return Promise.reject(failure);
        if (ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          waiting = { resolve, reject };
        });
      },
      return: () => {
        finish();
        buffer.length = 0;
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
