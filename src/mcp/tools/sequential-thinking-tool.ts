import * as crypto from 'node:crypto';
import { z } from 'zod';
import type { AgentSession } from '../../sessions/agent-session.js';
import type { SessionThought } from '../../sessions/session-model.js';
import { TotError } from '../../errors/index.js';
import { clipText } from '../../internal/clip-text.js';
import { bool, int } from '../input.js';
import { splitThought } from '../split-thought.js';
import { tool, type ToolSpec, type ToolContext } from '../tool-spec.js';

/** Remembers a client's session, in the server's map (the last 10,000 clients). */
const remember = (map: Map<string, string>, client: string, session: string) => {
  map.delete(client);
  map.set(client, session);
  if (map.size > 10_000) map.delete(map.keys().next().value as string);
};

/** What the tool knows of a session's sequential thinking, brought up to date thought by thought. */
interface SequenceIndex {
  /** The session's thoughts read so far: `t0` to `t<seen - 1>`. */
  seen: number;
  /**
   * By branch (`''` for the main line), then number: the index of the first part of the latest
   * thought sent with that number. Numbers and indexes, not strings: an entry costs a server that
   * holds 100,000 thoughts no string of its own.
   */
  latest: Map<string, Map<number, number>>;
  /** Calls recorded, a retried call once: the reference server's `thoughtHistoryLength`. */
  calls: number;
  /** The branches of the sequence, by the names calls gave them, in the order they appeared. */
  branches: Set<string>;
  /** The session's branches by name (the first of each name), and how many of them were read. */
  gotBranches: Map<string, string>;
  branchesSeen: number;
  /** The session's latest thought. */
  last: string | undefined;
}

// Kept with the session object, as long as the server holds it: a call reads only the thoughts
// added since the last call (its own parts, and any another writer added), never the whole
// session. A session restored from the store is read once, as its restore folded it.
const indexes = new WeakMap<AgentSession, SequenceIndex>();

/** The key of each part of a call: its branch, its number, the hash of what it said, the part. Sessions written before the hash have `seq:<branch>:<n>:<part>`. */
const KEY = /:key:seq:([^:]*):(\d+):(?:[0-9a-f]+:)?(\d+)$/;

function indexOf(s: AgentSession): SequenceIndex {
  let x = indexes.get(s);
  if (!x) indexes.set(s, (x = { seen: 0, latest: new Map(), calls: 0, branches: new Set(), gotBranches: new Map(), branchesSeen: 0, last: undefined }));
  while (x.seen < s.thoughtCount) note(x, s.thought(`t${x.seen}`)!);
  for (; x.branchesSeen < s.branchCount; x.branchesSeen++) {
    const b = s.branch(`br${x.branchesSeen}`)!;
    if (!x.gotBranches.has(b.name)) x.gotBranches.set(b.name, b.id);
  }
  return x;
}

/** Folds the session's next thought (`t<seen>`) into the index. */
function note(x: SequenceIndex, t: SessionThought): void {
  const m = KEY.exec(t.key);
  noted(x, t.id, m && m[3] === '0' ? m[1]! : undefined, m ? Number(m[2]) : 0);
}

/** Folds the next thought in, its key already known: the first part of a call on `branch` numbered `n`, or (`branch` undefined) another part, or not a call's. */
function noted(x: SequenceIndex, id: string, branch: string | undefined, n: number): void {
  x.last = id;
  if (branch !== undefined) {
    let numbers = x.latest.get(branch);
    if (!numbers) x.latest.set(branch, (numbers = new Map()));
    numbers.set(n, x.seen);
    x.calls += 1;
    if (branch !== '') x.branches.add(branch);
  }
  x.seen += 1;
}

/** The id of the first part of the latest thought sent with a number on a branch. */
function latest(x: SequenceIndex, branch: string, n: number): string | undefined {
  const i = x.latest.get(branch)?.get(n);
  return i === undefined ? undefined : `t${i}`;
}

/**
 * The thought numbered `n` on `branch`, else on the main line, else the latest sent with that
 * number on any branch: a thought of the main line may follow one sent on a branch (1, 2, 3 on
 * branch w, then 4 with no branch), and the reference server's history has it next all the same.
 */
function followed(x: SequenceIndex, branch: string, n: number): string | undefined {
  const own = latest(x, branch, n) ?? latest(x, '', n);
  if (own !== undefined) return own;
  let newest: number | undefined;
  for (const numbers of x.latest.values()) {
    const i = numbers.get(n);
    if (i !== undefined && (newest === undefined || i > newest)) newest = i;
  }
  return newest === undefined ? undefined : `t${newest}`;
}

/**
 * What makes a call the same call: sent again with the same words (a retry after a lost reply),
 * it finds what the first stored; another thought under a number already used is another call.
 */
const callKey = (a: SequentialArgs, branch: string) => {
  // The numbers first and the thought last: no two calls make the same text.
  const call = `${a.isRevision ? 1 : 0}:${a.revisesThought ?? ''}:${a.branchFromThought ?? ''}:${a.thought}`;
  // Joined, not a template: the key is kept with every part of the call, as one string rather than a tree of pieces.
  return ['seq:', branch, ':', a.thoughtNumber, ':', sha256Hex(call).slice(0, 12)].join('');
};

/**
 * Node's own SHA-256 in one call where Node has it (20.12 and later): a third of the time of a
 * `Hash` object (about 1 µs for a thought), and the same digest, so the keys of sessions written
 * before stay the keys of the same calls.
 */
const sha256Hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => (crypto as unknown as { hash(algorithm: string, data: string, encoding: 'hex'): string }).hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

const branchOf = (a: SequentialArgs) => (a.branchFromThought !== undefined ? (a.branchId ?? `branch-${a.branchFromThought}`) : (a.branchId ?? ''));

async function sessionFor(a: SequentialArgs, branch: string, key: string, ctx: ToolContext): Promise<{ s: AgentSession; x: SequenceIndex }> {
  const id = a.session_id ?? ctx.sequentialSessions.get(ctx.clientKey);
  // The session this client last used, when it names none, may be gone: started by a call whose
  // write failed (its start is stored with its first thought) and let go since. It starts anew.
  let s: AgentSession | undefined;
  if (id !== undefined) {
    try {
      s = await ctx.sessions.get(id, { signal: ctx.signal });
    } catch (error) {
      if (a.session_id !== undefined || !TotError.hasCode(error, 'INVALID_ARGUMENT')) throw error;
    }
  }
  if (s) {
    const x = indexOf(s);
    // A client that starts again at thought 1 without naming its session starts a new line of
    // thinking (the reference server simply appends): a new session, not a clash with the old one.
    // The same thought 1 sent again is a retry, though, and stays where the first went.
    const restart = a.session_id === undefined && a.thoughtNumber === 1 && !a.isRevision && a.branchFromThought === undefined && latest(x, '', 1) !== undefined && !s.thoughtByKey(`${key}:0`);
    if (!restart) return { s, x };
  }
  // Its start is stored with the call's thought, in one append: a committed write fewer per session.
  const started = await ctx.engine.startSession({ goal: `Sequential thinking: ${clipText(a.thought, 200, '')}`, deferStart: true, signal: ctx.signal });
  ctx.sessions.add(started);
  remember(ctx.sequentialSessions, ctx.clientKey, started.id);
  return { s: started, x: indexOf(started) };
}

export const sequentialThinkingTool: ToolSpec = tool({
  name: 'sequentialthinking',
  title: 'Sequential thinking',
  description:
    'Step-by-step thinking, compatible with the reference sequential-thinking server (the same input fields and output), backed by a stored agent session: thoughts persist across restarts, revisions refine the thought they revise, branches become real branches. Send session_id (returned by every call) to continue a session from another connection.',
  input: z.object({
    thought: z.string({ error: 'thought: send your current thinking step as text' }).min(1, 'thought: send your current thinking step as text').max(20_000, 'thought: at most 20,000 characters: split it into several thoughts'),
    nextThoughtNeeded: bool('nextThoughtNeeded'),
    thoughtNumber: int('thoughtNumber', 1, 100_000),
    totalThoughts: int('totalThoughts', 1, 100_000),
    isRevision: bool('isRevision').optional(),
    revisesThought: int('revisesThought', 1, 100_000).optional(),
    branchFromThought: int('branchFromThought', 1, 100_000).optional(),
    branchId: z.string().regex(/^[^:]{1,64}$/, 'branchId: a name of at most 64 characters, without ":"').optional(),
    needsMoreThoughts: bool('needsMoreThoughts').optional(),
    session_id: z.string().min(1).optional(),
  }),
  output: z.object({ thoughtNumber: z.number(), totalThoughts: z.number(), nextThoughtNeeded: z.boolean(), branches: z.array(z.string()), thoughtHistoryLength: z.number(), session_id: z.string() }),
  // Idempotent: the very same call sent again (a retry after a lost reply) finds what the first
  // stored, writes nothing and answers the same. A call with other words is another call: it adds
  // a thought (under a number already used too, as the reference server appends it), and a
  // thought 1 with other words that names no session starts a new session.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(a, ctx) {
    // One call at a time per client: two first calls would start two sessions, two calls on a new
    // branch would fork it twice.
    // With none in progress (the usual case) the call starts at once, and its end clears the
    // queue in the same turn: two promises a call rather than four.
    const previous = ctx.sequentialQueue.get(ctx.clientKey);
    const mine = previous ? previous.then(() => think(a, ctx)) : think(a, ctx);
    const done = () => {
      if (ctx.sequentialQueue.get(ctx.clientKey) === settled) ctx.sequentialQueue.delete(ctx.clientKey);
    };
    const settled: Promise<void> = mine.then(done, done);
    ctx.sequentialQueue.set(ctx.clientKey, settled);
    return mine;
  },
});

type SequentialArgs = { thought: string; nextThoughtNeeded: boolean; thoughtNumber: number; totalThoughts: number; isRevision?: boolean | undefined; revisesThought?: number | undefined; branchFromThought?: number | undefined; branchId?: string | undefined; session_id?: string | undefined };

async function think(a: SequentialArgs, ctx: ToolContext): Promise<{ structured: Record<string, unknown>; text: string }> {
  const branch = branchOf(a);
  const key = callKey(a, branch);
  const { s, x } = await sessionFor(a, branch, key, ctx);
  // A thought longer than the session's limit is stored whole, as parts that refine the first.
  const texts = splitThought(a.thought, s.maxThoughtChars);
  const stored = texts.map((_, i) => s.thoughtByKey(`${key}:${i}`)?.id);
  if (stored.some((id) => id === undefined)) {
    // The thought it follows: the one it revises, the one it branches from, or the one before it
    // (the latest sent with that number).
    const parentOf = (): { id?: string; edge: 'refines' | 'causes' } => {
      if (a.isRevision && a.revisesThought !== undefined) return { id: followed(x, branch, a.revisesThought), edge: 'refines' };
      if (a.branchFromThought !== undefined && latest(x, branch, a.thoughtNumber - 1) === undefined) return { id: followed(x, '', a.branchFromThought), edge: 'causes' };
      return { id: followed(x, branch, a.thoughtNumber - 1), edge: 'causes' };
    };
    let gotBranch: string | undefined;
    if (branch !== '') {
      gotBranch = x.gotBranches.get(branch);
      const from = latest(x, '', a.branchFromThought ?? a.thoughtNumber - 1) ?? x.last;
      if (gotBranch === undefined && from) {
        gotBranch = (await s.fork({ from, branches: [{ name: branch }], signal: ctx.signal }))[0]!.id;
        x.gotBranches.set(branch, gotBranch);
      }
    }
    const parent = parentOf();
    let previous = parent.id;
    for (const [i, text] of texts.entries()) {
      // Parts a retry finds stored (the first attempt stopped part way) are not written again.
      const done = stored[i];
      if (done !== undefined) {
        previous = done;
        continue;
      }
      const t = await s.addThought({
        role: a.isRevision ? 'critic' : 'planner',
        content: text,
        ...(previous ? { parentIds: [previous], edge: i === 0 ? parent.edge : 'refines' } : {}),
        ...(gotBranch ? { branchId: gotBranch } : {}),
        idempotencyKey: `${key}:${i}`,
        signal: ctx.signal,
      });
      previous = t.id;
      // The thought just written is, unless another writer got in first, the next one the index
      // reads: taken as it came back, its key as this call made it rather than parsed again.
      if (t.id === `t${x.seen}`) noted(x, t.id, i === 0 ? branch : undefined, a.thoughtNumber);
    }
  }
  // Reads the parts just written (and whatever another writer added meanwhile).
  indexOf(s);
  const structured = {
    thoughtNumber: a.thoughtNumber,
    totalThoughts: Math.max(a.totalThoughts, a.thoughtNumber),
    nextThoughtNeeded: a.nextThoughtNeeded,
    branches: [...x.branches],
    thoughtHistoryLength: x.calls,
    session_id: s.id,
  };
  return { structured, text: JSON.stringify(structured, null, 2) };
}
