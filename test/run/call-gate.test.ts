import { describe, expect, it } from 'vitest';
import { CallGate } from '../../src/run/call-gate.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

/** Queues waiters with the given priorities on a full gate; returns the order they got their slots in. */
async function order(priorities: number[]): Promise<string[]> {
  const gate = new CallGate(1);
  const signal = new AbortController().signal;
  expect(gate.acquire(signal)).toBeUndefined();
  const got: string[] = [];
  const waits = priorities.map((p, i) => gate.acquire(signal, p)!.then(() => (got.push(`${i}:p${p}`), gate.release())));
  gate.release();
  await Promise.all(waits);
  return got;
}

describe('CallGate', () => {
  it('takes a free slot at once, without a promise', () => {
    const gate = new CallGate(2);
    const signal = new AbortController().signal;
    expect(gate.acquire(signal)).toBeUndefined();
    expect(gate.acquire(signal)).toBeUndefined();
    expect(gate.acquire(signal)).toBeInstanceOf(Promise);
  });

  it('gives freed slots to waiters in arrival order when they share a priority', async () => {
    expect(await order([0, 0, 0])).toEqual(['0:p0', '1:p0', '2:p0']);
  });

  it('gives freed slots to the highest priority first, then in arrival order', async () => {
    expect(await order([1, 3, 0, 3, 1])).toEqual(['1:p3', '3:p3', '0:p1', '4:p1', '2:p0']);
  });

  it('drops a waiter whose signal aborts, and never starts it', async () => {
    const gate = new CallGate(1);
    const live = new AbortController().signal;
    const gone = new AbortController();
    gate.acquire(live);
    const dropped = gate.acquire(gone.signal, 5)!;
    const next = gate.acquire(live, 0)!;
    gone.abort(new Error('stop'));
    await catchTotError(() => dropped, 'ABORTED');
    gate.release();
    await expect(next).resolves.toBeUndefined();
  });
});
