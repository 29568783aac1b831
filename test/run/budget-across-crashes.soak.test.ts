import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecordedRun } from '../../src/index.js';
import { SqliteEventStore } from '../../src/sqlite/index.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { soak } from '../helpers/soak.js';

const MAX_CALLS = 16;
/** Processes killed with kill -9, at least (`npm test` runs the test short, `npm run test:soak` at full length). */
const KILLS = soak({ quick: 10, full: 30 });
// The server answers after this long, so that the calls a kill cuts off are in flight.
const REPLY_MS = 15;

/** A model server that counts the requests it receives, per run: the provider's own count. */
function countingServer() {
  const received = new Map<string, number>();
  const waiters: { runId: string; count: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { runId, prompt } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { runId: string; prompt: string };
      received.set(runId, (received.get(runId) ?? 0) + 1);
      for (const w of [...waiters]) {
        if (w.runId === runId && received.get(runId)! >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      // Every thought has three children, every state scores 5: a search wider than the budget.
      const [verb, content] = prompt.split(': ') as [string, string];
      const reply = verb === 'propose' ? ['a', 'b', 'c'].map((x) => `${content}.${x}`).join('\n') : '5';
      setTimeout(() => res.writableEnded || res.destroyed || res.end(reply), REPLY_MS);
    });
  });
  return {
    server,
    count: (runId: string) => received.get(runId) ?? 0,
    /** Resolves once the server has received `count` requests of `runId` in all. */
    reached: (runId: string, count: number) => new Promise<void>((resolve) => (received.get(runId) ?? 0) >= count ? resolve() : waiters.push({ runId, count, resolve })),
  };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

let dir: string;
let models: ReturnType<typeof countingServer>;
let url: string;
let child: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tot-budget-crash-'));
  models = countingServer();
  await new Promise<void>((resolve) => models.server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(models.server.address() as AddressInfo).port}/`;
  child = await bundleFixture('test/run/fixtures/budget-crash-child.ts');
}, 180_000);
afterAll(async () => {
  models.server.closeAllConnections();
  await new Promise((resolve) => models.server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('a hard budget across crashes', () => {
  it(`holds over more than ${KILLS} kill -9 of processes with calls in flight: the server never receives more than maxCalls (${MAX_CALLS}) calls of a run`, async () => {
    const db = join(dir, 'runs.db');
    let kills = 0;
    const runs: string[] = [];
    // A life loaded and waiting for its go: the next one loads while the current one runs.
    const load = (runId: string) => {
      const proc = spawn(process.execPath, [child, db, url, runId, String(MAX_CALLS)], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      return { proc, exit: exited(proc), output: () => out };
    };
    let next = load('budget-0');
    for (let r = 0; kills <= KILLS; r++) {
      const runId = `budget-${r}`;
      runs.push(runId);
      for (let life = 0; ; life++) {
        const { proc, exit, output } = next;
        // Started only now, so that its first request is counted after this point.
        const cut = models.reached(runId, models.count(runId) + 1 + ((r + life) % 3)).then(() => 'cut' as const);
        proc.stdin!.end('go\n');
        // Killed once the server holds one to three new requests of this life, the last still unanswered.
        const first = await Promise.race([exit.then(() => 'exited' as const), cut]);
        const killed = first === 'cut' && proc.exitCode === null;
        next = load(killed ? runId : `budget-${r + 1}`);
        if (killed) {
          proc.kill('SIGKILL');
          await exit;
          kills += 1;
          // What the killed process had sent reaches the server now, before the next life is counted.
          await new Promise((resolve) => setTimeout(resolve, 20));
          expect(models.count(runId), `requests the server received for ${runId} after ${life + 1} kills`).toBeLessThanOrEqual(MAX_CALLS);
          continue;
        }
        expect(await exit, `a life of ${runId} failed`).toBe(0);
        expect(JSON.parse(output())).toMatchObject({ stopReason: 'budget_exceeded' });
        break;
      }
      expect(models.count(runId), `requests the server received for ${runId}`).toBeLessThanOrEqual(MAX_CALLS);
    }
    next.proc.kill('SIGKILL');
    await next.exit;
    expect(kills).toBeGreaterThan(KILLS);
    // The kills did cut calls off: the logs hold requests that never got an answer, each charged on resume.
    const store = new SqliteEventStore({ path: db });
    let cutOff = 0;
    for (const runId of runs) {
      const log = await readRecordedRun(store, runId);
      expect(log.finished?.stopReason).toBe('budget_exceeded');
      cutOff += log.calls.filter((c) => c.outcome === 'open').length;
    }
    await store.close();
    expect(cutOff).toBeGreaterThan(0);
  }, 180_000);
});
