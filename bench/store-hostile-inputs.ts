/**
 * Hostile inputs against every event store. Each input below is given to the in-memory, SQLite and
 * PostgreSQL stores (PostgreSQL when TOT_POSTGRES_URL is set), and their answers are compared:
 * the stores must answer every input alike, and the table of answers in docs/event-store.md is
 * rendered from this run.
 *
 *   tsx bench/store-hostile-inputs.ts           prints every store's answer to every input (exit
 *                                              code 1 when two stores answer an input differently)
 *   tsx bench/store-hostile-inputs.ts --write   and renders the table into docs/event-store.md
 *                                              (refused unless all three stores ran and agree)
 *   tsx bench/store-hostile-inputs.ts --src DIR runs against the stores of another source tree
 *   TOT_HOSTILE_DEBUG=1 …                       adds each error's message to its code
 *
 * An answer is the code of the `TotError` a call failed with (a refused append is also checked to
 * have written nothing), `untyped …` for any other error, or what the call did.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EventStore, NewEvent, StoredEvent } from '../src/index.js';

/** One hostile input: `run` gives it to a store and says what happened. */
export interface HostileInput {
  group: string;
  /** What is given, as Markdown. */
  input: string;
  /** `s`: a prefix unique to this input (stream ids, keys). Throws the store's error, if any. */
  run(store: EventStore, s: string): Promise<string>;
}

const isTotError = (e: unknown): e is { code: string } => typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[Symbol.for('tot.error')] === true;

/** What a call did, or the code of the error it failed with. */
export async function answer(run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    if (isTotError(error)) return process.env.TOT_HOSTILE_DEBUG ? `${error.code}: ${(error as unknown as Error).message.slice(0, 200)}` : error.code;
    return `untyped ${(error as Error)?.constructor?.name ?? typeof error}`;
  }
}

async function collect(events: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const ev = (s: string, n: number | string, extra: Partial<NewEvent> = {}): NewEvent => ({ type: 't', data: { n }, idempotencyKey: `${s}:${n}`, ...extra });
const anyVersion = { expectedVersion: 'any' } as const;
const nested = (depth: number, wrap: (inner: unknown) => unknown): unknown => {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = wrap(v);
  return v;
};
const shared = (levels: number): unknown => {
  let v: unknown = 'x';
  for (let i = 0; i < levels; i++) v = [v, v];
  return v;
};

/** The JSON text of each field an event was sent with, next to what was read back. */
function differences(sent: readonly NewEvent[], read: readonly StoredEvent[], streamId: string): string | undefined {
  if (read.length !== sent.length) return `${read.length} of ${sent.length} events`;
  for (let i = 0; i < sent.length; i++) {
    const e = sent[i]!;
    const r = read[i]!;
    const fields: [string, unknown, unknown][] = [
      ['streamId', streamId, r.streamId],
      ['type', e.type, r.type],
      ['idempotencyKey', e.idempotencyKey, r.idempotencyKey],
      ['data', e.data, r.data],
      ['metadata', e.metadata ?? {}, r.metadata],
      ['parentIds', e.parentIds ?? [], r.parentIds],
      ['clock', e.clock ?? {}, r.clock],
      ...(e.eventId === undefined ? [] : [['eventId', e.eventId, r.eventId] as [string, unknown, unknown]]),
    ];
    for (const [field, a, b] of fields) if (JSON.stringify(a) !== JSON.stringify(b)) return `${field} changed`;
  }
  return undefined;
}

/**
 * Appends `events` to a new stream, reads them back and retries the append: "round-trips" when
 * every field reads back exactly as sent (as JSON text: key order included) and the retry is
 * deduplicated.
 */
async function roundTrip(store: EventStore, streamId: string, events: NewEvent[]): Promise<string> {
  await store.append(streamId, events, { expectedVersion: 'no_stream' });
  const changed = differences(events, await collect(store.readStream(streamId)), streamId);
  if (changed) return `stored, ${changed}`;
  const retry = await answer(async () => ((await store.append(streamId, events, { expectedVersion: 'no_stream' })).deduplicated ? 'deduplicated' : 'written again'));
  return retry === 'deduplicated' ? 'round-trips' : `round-trips, retry: ${retry}`;
}

/** An append that must be refused: the error's code, and whether the stream `s` was left as it was. */
async function refused(store: EventStore, s: string, append: () => Promise<unknown>): Promise<string> {
  const before = await store.streamVersion(s);
  try {
    await append();
  } catch (error) {
    if ((await store.streamVersion(s)) !== before) return `${await answer(() => Promise.reject(error))}, after writing`;
    throw error;
  }
  return (await store.streamVersion(s)) === before ? 'accepted, wrote nothing' : 'appended';
}

/** An append to a stream at version 0 with the given options. */
async function withOptions(store: EventStore, s: string, options: unknown): Promise<string> {
  await store.append(s, [ev(s, 0)], { expectedVersion: 'no_stream' });
  const result = await store.append(s, [ev(s, 1)], options as never);
  return `appended at version ${result.events[0]!.version}`;
}

/** Reads a stream of three events with the given options. */
async function readWith(store: EventStore, s: string, options: unknown): Promise<string> {
  await store.append(s, [ev(s, 0), ev(s, 1), ev(s, 2)], { expectedVersion: 'no_stream' });
  return describeRead(await collect(store.readStream(s, options as never)));
}

function describeRead(events: StoredEvent[]): string {
  if (events.length === 0) return 'empty';
  return `versions ${events.map((e) => e.version).join(', ')}`;
}

/** Appends three events, then reads everything after the position before them with the given options. */
async function readAllWith(store: EventStore, s: string, options: (before: bigint) => unknown): Promise<string> {
  const before = (await store.append(s, [ev(s, 'before')], { expectedVersion: 'no_stream' })).events[0]!.globalPosition;
  await store.append(s, [ev(s, 0), ev(s, 1), ev(s, 2)], { expectedVersion: 0 });
  const read = await collect(store.readAll(options(before) as never));
  const mine = read.filter((e) => e.streamId === s);
  return read.length === 0 ? 'empty' : `${mine.length} events of this stream${read.length === mine.length ? '' : ' and others'}`;
}

async function snapshotRoundTrip(store: EventStore, s: string, state: unknown, metadata?: Record<string, unknown>): Promise<string> {
  await store.saveSnapshot({ streamId: s, version: 0, state, ...(metadata ? { metadata } : {}) });
  const loaded = await store.loadSnapshot(s);
  if (!loaded) return 'saved, loads nothing';
  if (JSON.stringify(loaded.state) !== JSON.stringify(state)) return 'saved, state changed';
  if (metadata && JSON.stringify(loaded.metadata) !== JSON.stringify(metadata)) return 'saved, metadata changed';
  return 'round-trips';
}

const LONG = (n: number) => 'x'.repeat(n);
const hostileText = '\u0000 \ud800 \udc00x \udbff\u0000';
const withProto = () => JSON.parse('{"__proto__":{"polluted":true},"b":1,"a":2}') as Record<string, unknown>;

const stream = (name: string, id: (s: string) => unknown, expect: 'round-trip' | 'refuse' = 'refuse'): HostileInput => ({
  group: 'stream id',
  input: name,
  run: async (store, s) => (expect === 'round-trip' ? roundTrip(store, id(s) as string, [ev(s, 0)]) : (await store.append(id(s) as string, [ev(s, 0)], anyVersion), 'appended')),
});
const field = (group: string, name: string, change: (e: NewEvent) => void): HostileInput => ({
  group,
  input: name,
  run: async (store, s) => {
    const e = ev(s, 0);
    change(e);
    // Refused or not, what was stored is compared with what was sent.
    try {
      return await roundTrip(store, s, [e]);
    } catch (error) {
      if ((await store.streamVersion(s)) !== null) return 'refused after writing';
      throw error;
    }
  },
});
const data = (name: string, value: () => unknown): HostileInput => field('event data', name, (e) => (e.data = value()));

/** Every hostile input, in table order. */
export const hostileInputs: HostileInput[] = [
  stream("`''`", () => ''),
  stream("`'a\\u0000b'` (NUL)", (s) => `${s}a\u0000b`),
  stream("`'a\\ud800'` (lone high surrogate)", (s) => `${s}a\ud800`),
  stream("`'\\udc00a'` (lone low surrogate)", (s) => `${s}\udc00a`),
  stream("`'\\udc00\\ud800'` (a pair reversed)", (s) => `${s}\udc00\ud800`),
  {
    group: 'stream id',
    input: "`'a\\ufffd'` after an append to `'a\\ud800'`",
    run: async (store, s) => {
      await answer(() => store.append(`${s}a\ud800`, [ev(s, 0)], anyVersion).then(() => ''));
      return roundTrip(store, `${s}a\ufffd`, [ev(s, 1)]);
    },
  },
  stream("`'😀'` (a surrogate pair)", (s) => `${s}😀`, 'round-trip'),
  {
    group: 'stream id',
    input: "`'é'` (NFC) and `'e\\u0301'` (NFD)",
    run: async (store, s) => {
      await store.append(`${s}é`, [ev(s, 0)], { expectedVersion: 'no_stream' });
      await store.append(`${s}e\u0301`, [ev(s, 1)], { expectedVersion: 'no_stream' });
      return (await store.streamVersion(`${s}é`)) === 0 && (await store.streamVersion(`${s}e\u0301`)) === 0 ? 'two streams' : 'one stream';
    },
  },
  stream('512 UTF-16 units', (s) => s + LONG(512 - s.length), 'round-trip'),
  stream('513 UTF-16 units', (s) => s + LONG(513 - s.length)),
  stream('1,000,000 characters', (s) => s + LONG(1_000_000)),
  stream('`42` (a number)', () => 42),
  stream("`'__proto__'`", () => '__proto__', 'round-trip'),
  stream("`' '` (a space)", () => ' ', 'round-trip'),
  { group: 'stream id', input: "`readStream('a\\u0000')`", run: async (store) => describeRead(await collect(store.readStream('a\u0000'))) },
  { group: 'stream id', input: "`readStream('')`", run: async (store) => describeRead(await collect(store.readStream(''))) },
  { group: 'stream id', input: "`streamVersion('a\\ud800')`", run: async (store) => String(await store.streamVersion('a\ud800')) },
  { group: 'stream id', input: "`loadSnapshot('\\udc00')`", run: async (store) => String(await store.loadSnapshot('\udc00')) },

  field('event type', "`''`", (e) => (e.type = '')),
  field('event type', "`'a\\u0000'`", (e) => (e.type = 'a\u0000')),
  field('event type', "`'a\\ud800'`", (e) => (e.type = 'a\ud800')),
  field('event type', '256 UTF-16 units', (e) => (e.type = LONG(256))),
  field('event type', '257 UTF-16 units', (e) => (e.type = LONG(257))),
  field('event type', '`7` (a number)', (e) => (e.type = 7 as never)),
  field('event type', 'missing', (e) => delete (e as Partial<NewEvent>).type),
  field('event type', "`'✓ 😀'`", (e) => (e.type = '✓ 😀')),

  field('idempotency key', "`''`", (e) => (e.idempotencyKey = '')),
  field('idempotency key', 'with NUL', (e) => (e.idempotencyKey += '\u0000')),
  field('idempotency key', 'with a lone surrogate', (e) => (e.idempotencyKey += '\ud800')),
  field('idempotency key', '512 UTF-16 units', (e) => (e.idempotencyKey += LONG(512 - e.idempotencyKey.length))),
  field('idempotency key', '513 UTF-16 units', (e) => (e.idempotencyKey += LONG(513 - e.idempotencyKey.length))),
  field('idempotency key', 'missing', (e) => delete (e as Partial<NewEvent>).idempotencyKey),
  field('idempotency key', '`7` (a number)', (e) => (e.idempotencyKey = 7 as never)),
  { group: 'idempotency key', input: "`'__proto__'`", run: (store, s) => roundTrip(store, s, [{ ...ev(s, 0), idempotencyKey: '__proto__' }]) },
  { group: 'idempotency key', input: "`'constructor'`", run: (store, s) => roundTrip(store, s, [{ ...ev(s, 0), idempotencyKey: 'constructor' }]) },
  { group: 'idempotency key', input: 'the same key twice in a batch', run: (store, s) => refused(store, s, () => store.append(s, [ev(s, 0), { ...ev(s, 1), idempotencyKey: `${s}:0` }], anyVersion)) },
  {
    group: 'idempotency key',
    input: 'a key stored in another stream, same event',
    run: async (store, s) => {
      await store.append(`${s}-other`, [ev(s, 0)], anyVersion);
      return refused(store, s, () => store.append(s, [ev(s, 0)], anyVersion));
    },
  },

  field('event id', "`''`", (e) => (e.eventId = '')),
  field('event id', 'with NUL', (e) => (e.eventId = 'id\u0000')),
  field('event id', 'with a lone surrogate', (e) => (e.eventId = 'id\udfff')),
  field('event id', '256 UTF-16 units', (e) => (e.eventId = e.idempotencyKey + LONG(256 - e.idempotencyKey.length))),
  field('event id', '257 UTF-16 units', (e) => (e.eventId = LONG(257))),
  field('event id', '`7` (a number)', (e) => (e.eventId = 7 as never)),
  { group: 'event id', input: 'a UUID the caller made', run: (store, s) => roundTrip(store, s, [{ ...ev(s, 0), eventId: crypto.randomUUID() }]) },
  { group: 'event id', input: 'the same id twice in a batch', run: (store, s) => refused(store, s, () => store.append(s, [{ ...ev(s, 0), eventId: `${s}-id` }, { ...ev(s, 1), eventId: `${s}-id` }], anyVersion)) },
  {
    group: 'event id',
    input: 'the id of an event stored before (another key)',
    run: async (store, s) => {
      await store.append(`${s}-first`, [{ ...ev(s, 0), eventId: `${s}-id` }], anyVersion);
      return refused(store, s, () => store.append(s, [{ ...ev(s, 1), eventId: `${s}-id` }], anyVersion));
    },
  },
  {
    group: 'event id',
    input: 'the id the store gave an earlier event',
    run: async (store, s) => {
      const { events } = await store.append(`${s}-first`, [ev(s, 0)], anyVersion);
      return refused(store, s, () => store.append(s, [{ ...ev(s, 1), eventId: events[0]!.eventId }], anyVersion));
    },
  },
  {
    group: 'event id',
    input: 'the id of an event stored before, in the same stream (another key)',
    run: async (store, s) => {
      await store.append(s, [{ ...ev(s, 0), eventId: `${s}-id` }], anyVersion);
      return refused(store, s, () => store.append(s, [{ ...ev(s, 1), eventId: `${s}-id` }], anyVersion));
    },
  },

  field('parent ids', "`['']`", (e) => (e.parentIds = [''])),
  field('parent ids', "`['a\\u0000']`", (e) => (e.parentIds = ['a\u0000'])),
  field('parent ids', "`['\\ud800']`", (e) => (e.parentIds = ['\ud800'])),
  field('parent ids', "`'p'` (not an array)", (e) => (e.parentIds = 'p' as never)),
  field('parent ids', '`[1]`', (e) => (e.parentIds = [1] as never)),
  field('parent ids', 'an id of 257 UTF-16 units', (e) => (e.parentIds = [LONG(257)])),
  field('parent ids', '1,000 ids of unknown events', (e) => (e.parentIds = Array.from({ length: 1000 }, (_, i) => `p${i}`))),

  field('clock', "key `'a\\u0000'`", (e) => (e.clock = { 'a\u0000': 1 })),
  field('clock', "key `'\\udc00'`", (e) => (e.clock = { '\udc00': 1 })),
  field('clock', "key `''`", (e) => (e.clock = { '': 1 })),
  field('clock', "key `'__proto__'`", (e) => (e.clock = JSON.parse('{"__proto__":1,"b":2}') as Record<string, number>)),
  field('clock', 'keys in the order `b`, `a`', (e) => (e.clock = { b: 1, a: 2 })),
  field('clock', 'a value of `-1`', (e) => (e.clock = { a: -1 })),
  field('clock', 'a value of `1.5`', (e) => (e.clock = { a: 1.5 })),
  field('clock', 'a value of `NaN`', (e) => (e.clock = { a: Number.NaN })),
  field('clock', 'a value of `2 ** 53`', (e) => (e.clock = { a: 2 ** 53 })),
  field('clock', "a value of `'1'`", (e) => (e.clock = { a: '1' as never })),
  field('clock', '`[]`', (e) => (e.clock = [] as never)),
  field('clock', '`null`', (e) => (e.clock = null as never)),

  field('event metadata', '`[]`', (e) => (e.metadata = [] as never)),
  field('event metadata', '`null`', (e) => (e.metadata = null as never)),
  field('event metadata', "`'x'`", (e) => (e.metadata = 'x' as never)),
  field('event metadata', 'strings with NUL and lone surrogates', (e) => (e.metadata = { note: hostileText })),
  field('event metadata', 'keys in the order `b`, `a`', (e) => (e.metadata = { b: 1, a: 2 })),
  field('event metadata', "a `'__proto__'` key", (e) => (e.metadata = withProto())),
  field('event metadata', 'a function', (e) => (e.metadata = { f: () => 1 })),
  field('event metadata', 'objects 5,000 deep', (e) => (e.metadata = { deep: nested(5_000, (v) => ({ v })) })),

  data("`'a\\u0000b'` (NUL)", () => 'a\u0000b'),
  data("`'\\ud800'` (lone high surrogate)", () => '\ud800'),
  data("`'\\udc00x'` (lone low surrogate)", () => '\udc00x'),
  data('keys with NUL and lone surrogates', () => ({ 'a\u0000': 1, '\ud800': 2, '\udc00\ud800': 3 })),
  data('keys in the order `b`, `a`', () => ({ b: 1, a: 2, nested: { z: 1, y: [{ d: 1, c: 2 }] } })),
  data("numbers as keys (`{ b, '2', '1' }`)", () => ({ b: 1, '2': 2, '1': 3 })),
  data("a `'__proto__'` key", withProto),
  data('keys `constructor`, `toString`, `hasOwnProperty`', () => ({ constructor: 1, toString: 2, hasOwnProperty: 3 })),
  {
    group: 'event data',
    input: '`-0`',
    run: async (store, s) => {
      await store.append(s, [{ ...ev(s, 0), data: -0 }], { expectedVersion: 'no_stream' });
      const [read] = await collect(store.readStream(s));
      return Object.is(read!.data, -0) ? 'reads back -0' : `stored, reads back ${JSON.stringify(read!.data)} (JSON has no -0)`;
    },
  },
  data('`1e308`, `-1e308`, `Number.MAX_VALUE`', () => [1e308, -1e308, Number.MAX_VALUE]),
  data('`5e-324`, `0.1 + 0.2`, `123456789012345680000`', () => [5e-324, 0.1 + 0.2, 123456789012345680000]),
  data("`''`, `null`, `true`, `[]`, `{}`", () => ['', null, true, [], {}]),
  data('U+2028, U+2029, U+FEFF, U+FFFF', () => '\u2028\u2029\ufeff\uffff'),
  data('arrays 20,000 deep', () => nested(20_000, (v) => [v])),
  data('objects 5,000 deep', () => nested(5_000, (v) => ({ v }))),
  data('arrays 512 deep (the limit)', () => nested(512, (v) => [v])),
  data('arrays 513 deep', () => nested(513, (v) => [v])),
  data('a string of 1,000,000 characters', () => LONG(1_000_000)),
  data('a string of 2,000,000 characters (over 1 MiB)', () => LONG(2_000_000)),
  data('600 references to one string of 1,000,000 characters', () => Array.from({ length: 600 }, () => LONG(1_000_000))),
  data('one string shared 2 ** 40 times (`[v, v]`, 40 levels)', () => shared(40)),
  data('`undefined`', () => undefined),
  {
    group: 'event data',
    input: '`{ a: undefined, b: 1 }`',
    run: async (store, s) => {
      await store.append(s, [{ ...ev(s, 0), data: { a: undefined, b: 1 } }], { expectedVersion: 'no_stream' });
      const [read] = await collect(store.readStream(s));
      return `stored as ${JSON.stringify(read!.data)}`;
    },
  },
  data('`[undefined]`', () => [undefined]),
  data('a sparse array', () => [, 1]), // eslint-disable-line no-sparse-arrays
  data('a `Date`', () => new Date(0)),
  data('a `Map`', () => new Map([[1, 2]])),
  data('a `Uint8Array`', () => new Uint8Array(2)),
  data('an instance of a class', () => new (class Point { x = 1 })()),
  data('an object without prototype', () => Object.assign(Object.create(null) as object, { a: 1 })),
  data('a function', () => () => 1),
  data('a symbol', () => Symbol('s')),
  data('a `bigint`', () => 1n),
  data('`NaN`', () => Number.NaN),
  data('`Infinity`', () => Number.POSITIVE_INFINITY),
  data('a cycle', () => {
    const o: Record<string, unknown> = {};
    o.self = o;
    return o;
  }),
  data('a getter that throws', () => ({
    get boom(): never {
      throw new Error('boom');
    },
  })),

  { group: 'expected version', input: '`-1`', run: (store, s) => withOptions(store, s, { expectedVersion: -1 }) },
  { group: 'expected version', input: '`0.5`', run: (store, s) => withOptions(store, s, { expectedVersion: 0.5 }) },
  { group: 'expected version', input: '`NaN`', run: (store, s) => withOptions(store, s, { expectedVersion: Number.NaN }) },
  { group: 'expected version', input: '`Infinity`', run: (store, s) => withOptions(store, s, { expectedVersion: Number.POSITIVE_INFINITY }) },
  { group: 'expected version', input: "`'0'`", run: (store, s) => withOptions(store, s, { expectedVersion: '0' }) },
  { group: 'expected version', input: '`null`', run: (store, s) => withOptions(store, s, { expectedVersion: null }) },
  { group: 'expected version', input: 'missing', run: (store, s) => withOptions(store, s, {}) },
  { group: 'expected version', input: "`'ANY'`", run: (store, s) => withOptions(store, s, { expectedVersion: 'ANY' }) },
  { group: 'expected version', input: '`2 ** 53`', run: (store, s) => withOptions(store, s, { expectedVersion: 2 ** 53 }) },
  { group: 'expected version', input: '`2 ** 31` (past a 32-bit integer)', run: (store, s) => withOptions(store, s, { expectedVersion: 2 ** 31 }) },
  { group: 'expected version', input: '`2 ** 40`', run: (store, s) => withOptions(store, s, { expectedVersion: 2 ** 40 }) },
  { group: 'expected version', input: '`-0` on a stream at version 0', run: (store, s) => withOptions(store, s, { expectedVersion: -0 }) },
  { group: 'expected version', input: 'no options', run: (store, s) => withOptions(store, s, undefined) },
  { group: 'expected version', input: "`signal: 'yes'`", run: (store, s) => withOptions(store, s, { expectedVersion: 'any', signal: 'yes' }) },

  { group: 'batch', input: '`[]`', run: (store, s) => refused(store, s, () => store.append(s, [], anyVersion)) },
  { group: 'batch', input: '`null`', run: (store, s) => refused(store, s, () => store.append(s, null as never, anyVersion)) },
  { group: 'batch', input: 'an event instead of an array', run: (store, s) => refused(store, s, () => store.append(s, ev(s, 0) as never, anyVersion)) },
  { group: 'batch', input: '`[null]`', run: (store, s) => refused(store, s, () => store.append(s, [null] as never, anyVersion)) },
  { group: 'batch', input: '`[1]`', run: (store, s) => refused(store, s, () => store.append(s, [1] as never, anyVersion)) },
  { group: 'batch', input: 'a sparse array', run: (store, s) => refused(store, s, () => store.append(s, [, ev(s, 0)] as never, anyVersion)) }, // eslint-disable-line no-sparse-arrays
  {
    group: 'batch',
    input: '10,000 events',
    run: async (store, s) => {
      const r = await store.append(s, Array.from({ length: 10_000 }, (_, i) => ev(s, i)), { expectedVersion: 'no_stream' });
      return `appended, versions 0 to ${r.nextExpectedVersion}`;
    },
  },
  {
    group: 'batch',
    input: 'an event with a field the store does not know',
    run: async (store, s) => {
      await store.append(s, [{ ...ev(s, 0), extra: 1 } as NewEvent], { expectedVersion: 'no_stream' });
      const [read] = await collect(store.readStream(s));
      return 'extra' in read! ? 'stored with the field' : 'stored without the field';
    },
  },

  { group: 'readStream', input: '`fromVersion: -1`', run: (store, s) => readWith(store, s, { fromVersion: -1 }) },
  { group: 'readStream', input: '`fromVersion: 1.5`', run: (store, s) => readWith(store, s, { fromVersion: 1.5 }) },
  { group: 'readStream', input: '`fromVersion: NaN`', run: (store, s) => readWith(store, s, { fromVersion: Number.NaN }) },
  { group: 'readStream', input: "`fromVersion: '1'`", run: (store, s) => readWith(store, s, { fromVersion: '1' }) },
  { group: 'readStream', input: '`fromVersion: Infinity`', run: (store, s) => readWith(store, s, { fromVersion: Number.POSITIVE_INFINITY }) },
  { group: 'readStream', input: '`fromVersion: 2 ** 40`', run: (store, s) => readWith(store, s, { fromVersion: 2 ** 40 }) },
  { group: 'readStream', input: '`fromVersion: 2 ** 53`', run: (store, s) => readWith(store, s, { fromVersion: 2 ** 53 }) },
  { group: 'readStream', input: '`toVersion: -1`', run: (store, s) => readWith(store, s, { toVersion: -1 }) },
  { group: 'readStream', input: '`fromVersion: 2, toVersion: 1`', run: (store, s) => readWith(store, s, { fromVersion: 2, toVersion: 1 }) },
  { group: 'readStream', input: '`toVersion: 2 ** 40`', run: (store, s) => readWith(store, s, { toVersion: 2 ** 40 }) },
  { group: 'readStream', input: '`limit: 0`', run: (store, s) => readWith(store, s, { limit: 0 }) },
  { group: 'readStream', input: '`limit: -1`', run: (store, s) => readWith(store, s, { limit: -1 }) },
  { group: 'readStream', input: '`limit: 1.5`', run: (store, s) => readWith(store, s, { limit: 1.5 }) },
  { group: 'readStream', input: '`limit: 2 ** 40`', run: (store, s) => readWith(store, s, { limit: 2 ** 40 }) },
  { group: 'readStream', input: '`limit: Infinity`', run: (store, s) => readWith(store, s, { limit: Number.POSITIVE_INFINITY }) },
  { group: 'readStream', input: '`null` options', run: (store, s) => readWith(store, s, null) },

  { group: 'readAll', input: '`after: -1n`', run: (store, s) => readAllWith(store, s, () => ({ after: -1n, limit: 1 })) },
  { group: 'readAll', input: '`after` the position before the events', run: (store, s) => readAllWith(store, s, (before) => ({ after: before })) },
  { group: 'readAll', input: '`after: 2n ** 63n - 1n`', run: (store, s) => readAllWith(store, s, () => ({ after: 2n ** 63n - 1n })) },
  { group: 'readAll', input: '`after: 2n ** 70n`', run: (store, s) => readAllWith(store, s, () => ({ after: 2n ** 70n })) },
  { group: 'readAll', input: '`after: 1` (a number)', run: (store, s) => readAllWith(store, s, () => ({ after: 1 })) },
  { group: 'readAll', input: "`after: '1'`", run: (store, s) => readAllWith(store, s, () => ({ after: '1' })) },
  { group: 'readAll', input: '`limit: 0`', run: (store, s) => readAllWith(store, s, (before) => ({ after: before, limit: 0 })) },
  { group: 'readAll', input: '`limit: 1.5`', run: (store, s) => readAllWith(store, s, (before) => ({ after: before, limit: 1.5 })) },
  { group: 'readAll', input: '`limit: 2 ** 40`', run: (store, s) => readAllWith(store, s, (before) => ({ after: before, limit: 2 ** 40 })) },

  ...(
    [
      ['`version: -1`', -1],
      ['`version: 1.5`', 1.5],
      ['`version: NaN`', Number.NaN],
      ["`version: '1'`", '1'],
      ['`version: 2 ** 53`', 2 ** 53],
    ] as const
  ).map(([input, version]): HostileInput => ({ group: 'snapshot', input, run: async (store, s) => (await store.saveSnapshot({ streamId: s, version: version as number, state: 1 }), 'saved') })),
  {
    group: 'snapshot',
    input: '`version: 2 ** 40`',
    run: async (store, s) => {
      await store.saveSnapshot({ streamId: s, version: 2 ** 40, state: 1 });
      return `loads version ${(await store.loadSnapshot(s))?.version}`;
    },
  },
  { group: 'snapshot', input: 'state `undefined`', run: (store, s) => snapshotRoundTrip(store, s, undefined) },
  { group: 'snapshot', input: 'state and metadata with NUL, lone surrogates, keys `b`, `a` and `__proto__`', run: (store, s) => snapshotRoundTrip(store, s, { text: hostileText, order: withProto() }, withProto()) },
  { group: 'snapshot', input: 'state objects 5,000 deep', run: (store, s) => snapshotRoundTrip(store, s, nested(5_000, (v) => ({ v }))) },
  { group: 'snapshot', input: 'state arrays 20,000 deep', run: (store, s) => snapshotRoundTrip(store, s, nested(20_000, (v) => [v])) },
  { group: 'snapshot', input: 'a function in the state', run: (store, s) => snapshotRoundTrip(store, s, { f: () => 1 }) },
  { group: 'snapshot', input: 'one string shared 2 ** 40 times in the state', run: (store, s) => snapshotRoundTrip(store, s, shared(40)) },
  { group: 'snapshot', input: 'a state of 70,000,000 characters (over 64 MiB)', run: (store, s) => snapshotRoundTrip(store, s, LONG(70_000_000)) },
  { group: 'snapshot', input: 'metadata `[]`', run: (store, s) => snapshotRoundTrip(store, s, 1, [] as never) },
  { group: 'snapshot', input: "stream id `'a\\u0000'`", run: async (store, s) => (await store.saveSnapshot({ streamId: `${s}a\u0000`, version: 0, state: 1 }), 'saved') },
  {
    group: 'snapshot',
    input: 'version 5 saved, then version 3',
    run: async (store, s) => {
      await store.saveSnapshot({ streamId: s, version: 5, state: 5 });
      await store.saveSnapshot({ streamId: s, version: 3, state: 3 });
      return `loads version ${(await store.loadSnapshot(s))?.version}`;
    },
  },
  {
    group: 'snapshot',
    input: 'version 3 saved twice, with other states',
    run: async (store, s) => {
      await store.saveSnapshot({ streamId: s, version: 3, state: 'first' });
      await store.saveSnapshot({ streamId: s, version: 3, state: 'second' });
      return `loads the ${(await store.loadSnapshot(s))?.state as string} state`;
    },
  },
  {
    group: 'snapshot',
    input: 'a loaded snapshot changed by the caller',
    run: async (store, s) => {
      await store.saveSnapshot({ streamId: s, version: 0, state: { n: 1 } });
      const first = (await store.loadSnapshot(s))!;
      try {
        (first.state as { n: number }).n = 2;
      } catch {
        return 'frozen';
      }
      return (((await store.loadSnapshot(s))!.state as { n: number }).n === 1) ? 'a fresh, mutable copy on every load' : 'the change is kept';
    },
  },
];

/** Every store's answer to every input (in order), PostgreSQL's when a server is configured. */
export async function storeAnswers(src: string, inputs: readonly HostileInput[] = hostileInputs, skip?: RegExp): Promise<{ stores: string[]; answers: string[][] }> {
  const { InMemoryEventStore } = (await import(pathToFileURL(join(src, 'index.ts')).href)) as typeof import('../src/index.js');
  const { SqliteEventStore } = (await import(pathToFileURL(join(src, 'sqlite/index.ts')).href)) as typeof import('../src/sqlite/index.js');
  const { PostgresEventStore } = (await import(pathToFileURL(join(src, 'postgres/index.ts')).href)) as typeof import('../src/postgres/index.js');
  const stores: [string, () => Promise<EventStore>][] = [
    ['in-memory', async () => new InMemoryEventStore()],
    ['SQLite', async () => new SqliteEventStore({ path: join(mkdtempSync(join(tmpdir(), 'tot-hostile-')), 'events.db') })],
  ];
  const url = process.env.TOT_POSTGRES_URL;
  if (url) {
    stores.push([
      'PostgreSQL',
      async () => {
        const store = new PostgresEventStore({ connectionString: url, tablePrefix: `hostile_${process.pid}_${Date.now().toString(36)}_` });
        await store.setup();
        return store;
      },
    ]);
  }
  const answers: string[][] = inputs.map(() => []);
  for (const [, create] of stores) {
    const store = await create();
    for (const [i, input] of inputs.entries()) {
      if (skip?.test(input.input)) {
        answers[i]!.push('(skipped)');
        continue;
      }
      answers[i]!.push(await answer(() => input.run(store, `h${i}-`)));
    }
    await store.close();
  }
  return { stores: stores.map(([name]) => name), answers };
}

const escapeCell = (text: string) => text.replace(/\|/g, '\\|');

/** The table of docs/event-store.md: one answer per input. */
export function renderTable(inputs: readonly HostileInput[], answers: readonly string[][]): string {
  const rows = inputs.map((input, i) => `| ${input.group} | ${escapeCell(input.input)} | ${escapeCell(answers[i]![0]!)} |`);
  return ['| what | input | every store answers |', '| --- | --- | --- |', ...rows].join('\n');
}

const START = '<!-- hostile-inputs:start (rendered by bench/store-hostile-inputs.ts --write) -->';
const END = '<!-- hostile-inputs:end -->';

/** The answers of the table in docs/event-store.md, by input (Markdown as written). */
export function documentedAnswers(doc: string): Map<string, string> {
  const table = doc.slice(doc.indexOf(START) + START.length, doc.indexOf(END));
  const out = new Map<string, string>();
  for (const line of table.split('\n').slice(3)) {
    const cells = line.split(/(?<!\\) \| /);
    if (cells.length === 3) out.set(`${cells[0]!.slice(2)} / ${cells[1]!.replace(/\\\|/g, '|')}`, cells[2]!.slice(0, -2).replace(/\\\|/g, '|'));
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const srcAt = args.indexOf('--src');
  const src = resolve(srcAt === -1 ? fileURLToPath(new URL('../src/', import.meta.url)) : args[srcAt + 1]!);
  const skipAt = args.indexOf('--skip');
  const skip = skipAt === -1 ? undefined : new RegExp(args[skipAt + 1]!);
  const { stores, answers } = await storeAnswers(src, hostileInputs, skip);
  let differ = 0;
  console.log(`| what | input | ${stores.join(' | ')} |`);
  for (const [i, input] of hostileInputs.entries()) {
    const same = answers[i]!.every((a) => a === answers[i]![0]);
    if (!same) differ++;
    console.log(`| ${input.group} | ${input.input} | ${answers[i]!.join(' | ')} |${same ? '' : ' DIFFERS'}`);
  }
  console.log(`\n${hostileInputs.length} inputs, ${stores.length} stores: ${differ} answered differently.`);
  if (args.includes('--write')) {
    if (stores.length < 3) throw new Error('--write needs all three stores: set TOT_POSTGRES_URL');
    if (differ > 0) throw new Error('--write needs every store to answer every input alike');
    const path = fileURLToPath(new URL('../docs/event-store.md', import.meta.url));
    if (!existsSync(path)) throw new Error(`${path} is missing`);
    const doc = readFileSync(path, 'utf8');
    if (!doc.includes(START) || !doc.includes(END)) throw new Error(`${path} has no hostile-inputs markers`);
    writeFileSync(path, doc.slice(0, doc.indexOf(START) + START.length) + '\n' + renderTable(hostileInputs, answers) + '\n' + doc.slice(doc.indexOf(END)));
    console.log(`wrote the table into ${path}`);
  }
  process.exit(differ > 0 ? 1 : 0);
}
