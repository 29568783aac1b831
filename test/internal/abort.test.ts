import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { linkSignals, raceAbort, sleep, whenAborted } from '../../src/internal/abort.js';
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

  it('takes its listener off a signal once the last call waiting on it has settled', async () => {
    const controller = new AbortController();
    await raceAbort(Promise.resolve(1), controller.signal);
    const cancel = whenAborted(controller.signal, () => undefined);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    cancel();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('linkSignals', () => {
  it('aborts with the reason of whichever source aborts', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal } = linkSignals(a.signal, b.signal);
    b.abort('b stopped');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('b stopped');
  });

  it('is aborted at once when a source already is', () => {
    const { signal } = linkSignals(new AbortController().signal, AbortSignal.abort('done'));
    expect(signal.reason).toBe('done');
  });

  it('leaves no listener on its sources once unlinked, and no longer follows them', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal, unlink } = linkSignals(a.signal, b.signal);
    unlink();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
    a.abort();
    expect(signal.aborted).toBe(false);
  });

  it('leaves no listener on the other sources once one has aborted', () => {
    const a = new AbortController();
    const b = new AbortController();
    linkSignals(a.signal, b.signal);
    a.abort();
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
  });

  it('returns a single signal as it is, and none for none', () => {
    const a = new AbortController();
    expect(linkSignals(a.signal, undefined, a.signal).signal).toBe(a.signal);
    expect(linkSignals(undefined).signal).toBeUndefined();
  });
});
