import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { raceAbort, sleep, whenAborted } from '../../src/internal/abort.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

describe('abort handling', () => {
  it('keeps one listener on a signal however many calls wait on it', async () => {
    const controller = new AbortController();
    const pending = Array.from({ length: 50 }, () => raceAbort(new Promise(() => undefined), controller.signal));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    for (const p of pending) await catchTotError(() => p, 'ABORTED');
  });

  it('forgets a waiter once its call settles', async () => {
    const controller = new AbortController();
    const onAbort = vi.fn();
    const cancel = whenAborted(controller.signal, onAbort);
    expect(await raceAbort(Promise.resolve(7), controller.signal)).toBe(7);
    cancel();
    controller.abort();
    expect(onAbort).not.toHaveBeenCalled();
  });

  it('calls back at once for a signal that has already aborted', () => {
    const onAbort = vi.fn();
    whenAborted(AbortSignal.abort(), onAbort);
    expect(onAbort).toHaveBeenCalledTimes(1);
  });

  it('ends a sleep early with ABORTED and leaves a finished sleep alone', async () => {
    const controller = new AbortController();
    await sleep(1, controller.signal);
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await catchTotError(() => waiting, 'ABORTED');
  });
});
