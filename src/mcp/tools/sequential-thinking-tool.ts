import { z } from 'zod';
import type { GotSession } from '../../got/got-session.js';
import { bool, int } from '../input.js';
import { tool, type ToolSpec, type ToolContext } from '../tool-spec.js';

/** Remembers a client's session, in the server's map (the last 10,000 clients). */
const remember = (map: Map<string, string>, client: string, session: string) => {
  map.delete(client);
  map.set(client, session);
  if (map.size > 10_000) map.delete(map.keys().next().value as string);
};

const KEY = /:seq:([^:]*):(\d+):(\d+)$/;

/** The thoughts of a session the sequential-thinking tool wrote: by branch and number, the id of each first part. */
function sequence(thoughts: readonly { key: string; id: string }[]): { byNumber: Map<string, string>; numbers: Set<string>; branches: Set<string> } {
  const byNumber = new Map<string, string>();
  const numbers = new Set<string>();
  const branches = new Set<string>();
  for (const t of thoughts) {
    const m = KEY.exec(t.key);
    if (!m) continue;
    const [, branch, n, part] = m;
    if (branch !== '') branches.add(branch!);
    numbers.add(`${branch}:${n}`);
    if (part === '0') byNumber.set(`${branch}:${n}`, t.id);
  }
  return { byNumber, numbers, branches };
}

/** Splits a thought into parts the session accepts, at word boundaries when it can. */
function parts(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf(' ', max);
    if (cut < max / 2) cut = max;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '' || out.length === 0) out.push(rest);
  return out;
}

async function sessionFor(a: { session_id?: string | undefined; thought: string; thoughtNumber: number; isRevision?: boolean | undefined; branchFromThought?: number | undefined }, ctx: ToolContext): Promise<GotSession> {
  const id = a.session_id ?? ctx.sequentialSessions.get(ctx.clientKey);
  if (id) {
    const s = await ctx.sessions.get(id, { signal: ctx.signal });
    // A client that starts again at thought 1 without naming its session starts a new line of
    // thinking (the reference server simply appends): a new session, not a clash with the old one.
    const restart = a.session_id === undefined && a.thoughtNumber === 1 && !a.isRevision && a.branchFromThought === undefined && sequence(s.snapshot().thoughts).numbers.has(':1');
    if (!restart) return s;
  }
  const s = await ctx.engine.startSession({ goal: `Sequential thinking: ${a.thought.slice(0, 200)}`, signal: ctx.signal });
  ctx.sessions.add(s);
  remember(ctx.sequentialSessions, ctx.clientKey, s.id);
  return s;
}

export const sequentialThinkingTool: ToolSpec = tool({
  name: 'sequentialthinking',
  title: 'Sequential thinking',
  description:
    'Step-by-step thinking, compatible with the reference sequential-thinking server (the same input fields and output), backed by a stored Graph-of-Thought session: thoughts persist across restarts, revisions refine the thought they revise, branches become real branches. Send session_id (returned by every call) to continue a session from another connection.',
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
  // Not idempotent: a thought-1 call that names no session starts a new session each time it is
  // sent (as a client starting a new line of thinking expects), and each call adds to a session.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run(a, ctx) {
    // One call at a time per client: two first calls would start two sessions, two calls on a new
    // branch would fork it twice.
    const previous = ctx.sequentialQueue.get(ctx.clientKey) ?? Promise.resolve();
    const mine = previous.then(() => think(a, ctx));
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    ctx.sequentialQueue.set(ctx.clientKey, settled);
    void settled.then(() => {
      if (ctx.sequentialQueue.get(ctx.clientKey) === settled) ctx.sequentialQueue.delete(ctx.clientKey);
    });
    return mine;
  },
});

type SequentialArgs = { thought: string; nextThoughtNeeded: boolean; thoughtNumber: number; totalThoughts: number; isRevision?: boolean | undefined; revisesThought?: number | undefined; branchFromThought?: number | undefined; branchId?: string | undefined; session_id?: string | undefined };

async function think(a: SequentialArgs, ctx: ToolContext): Promise<{ structured: Record<string, unknown>; text: string }> {
  {
    const s = await sessionFor(a, ctx);
    const totalThoughts = Math.max(a.totalThoughts, a.thoughtNumber);
    const branch = a.branchFromThought !== undefined ? (a.branchId ?? `branch-${a.branchFromThought}`) : (a.branchId ?? '');
    // One copy of the session per call: a snapshot copies every thought.
    const snap = s.snapshot();
    const before = sequence(snap.thoughts);
    // The thought it follows: the one it revises, the one it branches from, or the one before it.
    const parentOf = (): { id?: string; edge: 'refines' | 'causes' } => {
      if (a.isRevision && a.revisesThought !== undefined) return { id: before.byNumber.get(`${branch}:${a.revisesThought}`) ?? before.byNumber.get(`:${a.revisesThought}`), edge: 'refines' };
      if (a.branchFromThought !== undefined && !before.numbers.has(`${branch}:${a.thoughtNumber - 1}`)) return { id: before.byNumber.get(`:${a.branchFromThought}`), edge: 'causes' };
      return { id: before.byNumber.get(`${branch}:${a.thoughtNumber - 1}`) ?? before.byNumber.get(`:${a.thoughtNumber - 1}`), edge: 'causes' };
    };
    let gotBranch: string | undefined;
    if (branch !== '') {
      const existing = snap.branches.find((b) => b.name === branch);
      if (existing) gotBranch = existing.id;
      else {
        const from = before.byNumber.get(`:${a.branchFromThought ?? a.thoughtNumber - 1}`) ?? snap.thoughts.at(-1)?.id;
        if (from) gotBranch = (await s.fork({ from, branches: [{ name: branch }], signal: ctx.signal }))[0]!.id;
      }
    }
    const parent = parentOf();
    // A thought longer than the session's limit is stored whole, as parts that refine the first.
    let previous = parent.id;
    for (const [i, text] of parts(a.thought, snap.maxThoughtChars).entries()) {
      const t = await s.addThought({
        role: a.isRevision ? 'critic' : 'planner',
        content: text,
        ...(previous ? { parentIds: [previous], edge: i === 0 ? parent.edge : 'refines' } : {}),
        ...(gotBranch ? { branchId: gotBranch } : {}),
        idempotencyKey: `seq:${branch}:${a.thoughtNumber}:${i}`,
        signal: ctx.signal,
      });
      previous = t.id;
    }
    const after = { numbers: new Set(before.numbers).add(`${branch}:${a.thoughtNumber}`), branches: branch === '' ? before.branches : new Set(before.branches).add(branch) };
    const structured = {
      thoughtNumber: a.thoughtNumber,
      totalThoughts,
      nextThoughtNeeded: a.nextThoughtNeeded,
      branches: [...after.branches],
      thoughtHistoryLength: after.numbers.size,
      session_id: s.id,
    };
    return { structured, text: JSON.stringify(structured, null, 2) };
  }
}
