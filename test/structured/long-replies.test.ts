import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateStructured, parseStructured } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { catchTotError } from '../helpers/expect-tot-error.js';

const schema = z.object({ score: z.number() });
const MiB = 1 << 20;

/** `unit` repeated to `length` characters, as one flat string (as a reply read from a response is). */
function flat(unit: string, length: number): string {
  const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  // `repeat` builds a rope; reading a character flattens it now rather than inside the parse.
  text.charCodeAt(text.length - 1);
  return text;
}

/**
 * Counts the turns of the event loop: a callback that queues itself with setImmediate runs once
 * per turn, and only when nothing holds the loop. `onTick` runs on every turn.
 */
function heartbeat(onTick: (ticks: number) => void = () => undefined) {
  let ticks = 0;
  let handle: ReturnType<typeof setImmediate> | undefined;
  const beat = () => {
    ticks++;
    onTick(ticks);
    handle = setImmediate(beat);
  };
  handle = setImmediate(beat);
  return {
    get ticks() {
      return ticks;
    },
    stop: () => clearImmediate(handle),
  };
}

let running: ReturnType<typeof heartbeat> | undefined;
afterEach(() => running?.stop());

describe('a reply longer than maxReplyChars', () => {
  it('fails generateStructured with INVALID_FORMAT naming the limit, without a repair', async () => {
    const model = mockModel(flat('{"score": 1} ', 1_000_001));
    const error = await catchTotError(() => generateStructured(model, { prompt: 'p', schema, maxRepairs: 2 }), 'INVALID_FORMAT');
    expect(error.message).toMatch(/1000001 characters long, more than the 1000000 that maxReplyChars allows/);
    expect(error.details).toMatchObject({ maxReplyChars: 1_000_000, replyChars: 1_000_001, attempts: 1 });
    expect(model.callCount).toBe(1);
  });

  it('of 100 MB is refused unread: the call settles before the event loop turns once', async () => {
    const reply = flat('word ', 100_000_000);
    running = heartbeat();
    const error = await catchTotError(() => generateStructured(mockModel(reply), { prompt: 'p', schema }), 'INVALID_FORMAT');
    expect(running.ticks).toBe(0);
    expect(error.details?.replyChars).toBe(100_000_000);
  });

  it('is read when the limit is raised', async () => {
    const reply = `${flat(' ', 1_000_000)}{"score": 4}`;
    const { value } = await generateStructured(mockModel(reply), { prompt: 'p', schema, maxReplyChars: 2_000_000 });
    expect(value).toEqual({ score: 4 });
  });

  it('fails parseStructured with a syntax failure naming the limit', () => {
    const r = parseStructured('{"score": 1}', { schema, maxReplyChars: 11 });
    expect(r).toMatchObject({ success: false, reason: 'syntax' });
    expect(!r.success && r.error).toMatch(/12 characters long, more than the 11 that maxReplyChars allows/);
  });
});

describe('reading a long reply leaves the event loop free', () => {
  // With the limit raised to read them. Each took from 0.7 to 2.7 s in one synchronous step.
  const long = [
    { name: '16 million open braces, JSON', reply: () => flat('{', 16_000_000), format: 'json' as const },
    { name: '16 million open brackets, JSON', reply: () => flat('[', 16_000_000), format: 'json' as const },
    { name: '16 million open braces, YAML', reply: () => flat('{', 16_000_000), format: 'yaml' as const },
  ];

  it.each(long)('$name: the loop turns at least once per MiB read', async ({ reply, format }) => {
    const text = reply();
    running = heartbeat();
    await catchTotError(() => generateStructured(mockModel(text), { prompt: 'p', schema, format, maxRepairs: 0, maxReplyChars: 20_000_000 }), 'INVALID_FORMAT');
    expect(running.ticks).toBeGreaterThanOrEqual(Math.floor(text.length / MiB));
  });

  it.each([
    { name: '16 million open braces', reply: () => flat('{', 16_000_000) },
    { name: '100 MB of prose', reply: () => flat('word ', 100_000_000) },
  ])('$name: an abort while it is read rejects with ABORTED before the read ends', async ({ reply }) => {
    const text = reply();
    const controller = new AbortController();
    // Aborted on the third turn of the loop after the reply arrives: a read that held the loop
    // would end (with INVALID_FORMAT) before that turn came.
    const model = mockModel(() => {
      running = heartbeat((ticks) => {
        if (ticks === 3) controller.abort(new Error('shutting down'));
      });
      return text;
    });
    await catchTotError(() => generateStructured(model, { prompt: 'p', schema, maxRepairs: 0, maxReplyChars: 200_000_000, signal: controller.signal }), 'ABORTED');
  });
});
