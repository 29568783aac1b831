import { describe, expect, it } from 'vitest';
import { TotError } from '../../src/index.js';
import type { Run } from '../../src/run/run.js';
import { onKernelRun } from '../helpers/on-run.js';

/** Runs `main` on a run of the kernel and returns what `main` settled with. */
const onRun = async (main: (run: Pick<Run, 'guard'>) => Promise<unknown>, signal?: AbortSignal) => (await onKernelRun(undefined, main, signal)).settled;

const never = () => new Promise<string>(() => undefined);

describe("a run's guarded work", () => {
  it('settles with what the work settles with', async () => {
    const settled = await onRun((run) => Promise.all([run.guard(async () => 'a', 'role'), run.guard(() => Promise.reject(new Error('no')), 'role').catch((e: Error) => e.message)]));
    expect(settled).toEqual({ status: 'fulfilled', value: ['a', 'no'] });
  });

  it('rejects work that ignores the signal with ABORTED, naming it, as soon as the run stops', async () => {
    const stop = new AbortController();
    const settled = await onRun((run) => {
      const pending = run.guard(never, 'generator');
      setTimeout(() => stop.abort(new Error('enough')), 5);
      return pending;
    }, stop.signal);
    const error = (settled as PromiseRejectedResult).reason as TotError;
    expect(TotError.isInstance(error) && error.code).toBe('ABORTED');
  });

  it('rejects every piece of work still under way when the run stops, in the order they started, and none that had settled', async () => {
    const stop = new AbortController();
    const order: string[] = [];
    const settled = await onRun(async (run) => {
      const done = run.guard(async () => 'done', 'first');
      await done;
      const pieces = ['second', 'third', 'fourth'].map((what) => run.guard(never, what).catch(() => void order.push(what)));
      stop.abort(new Error('enough'));
      await Promise.all(pieces);
      return done;
    }, stop.signal);
    expect(settled).toEqual({ status: 'fulfilled', value: 'done' });
    expect(order).toEqual(['second', 'third', 'fourth']);
  });

  it('drops the late outcome of work the run stopped waiting for', async () => {
    const stop = new AbortController();
    let finish: (value: string) => void = () => undefined;
    const settled = await onRun((run) => {
      const pending = run.guard(() => new Promise<string>((resolve) => (finish = resolve)), 'evaluator');
      stop.abort(new Error('enough'));
      finish('late');
      return pending;
    }, stop.signal);
    expect(settled.status).toBe('rejected');
  });
});
