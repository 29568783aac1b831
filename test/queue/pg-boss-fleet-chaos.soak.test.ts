// A fleet of real worker processes on a real PostgreSQL, a worker killed with SIGKILL every 2 s and
// restarted while runs flow. Randomized: `npm test` runs it for 10 s, `npm run test:soak` for 30 s
// (test/helpers/soak.ts).
import { describe, expect, it } from 'vitest';
import { soak } from '../helpers/soak.js';
import { count, driveIntervals, events, exited, readWorkerLog, reference, useFleets } from './fixtures/fleet.js';
import { countingModel, searchFlow } from './fixtures/search-flow.js';

const url = process.env.TOT_POSTGRES_URL;
/** Seconds of chaos, and the runs submitted through them (about seven a second). */
const CHAOS_S = soak({ quick: 10, full: 30 });
const RUNS = soak({ quick: 60, full: 200 });

describe.skipIf(!url)('pgBossQueue with worker processes killed while runs flow', () => {
  const openFleet = useFleets(url);

  it(
    `finishes every run while a worker is killed every 2 s for ${CHAOS_S} s: results as uninterrupted, no completed call made twice, no run driven by two workers at once, every call asked by a worker that had taken its run`,
    async () => {
      const f = await openFleet(20);
      for (let i = 0; i < 4; i++) f.start({ CONCURRENCY: '8' });
      const puzzles = Array.from({ length: RUNS }, (_, i) => `p${i}`);
      const ids = new Map<string, string>();
      const killedAt = new Map<number, number>();
      const started = Date.now();
      // Runs arrive all through the chaos, as a service's would.
      const submitting = (async () => {
        for (const [i, puzzle] of puzzles.entries()) {
          ids.set(puzzle, await f.queue.submit(searchFlow(countingModel()), { puzzle }, { key: puzzle }));
          const due = started + ((i + 1) * (CHAOS_S - 2) * 1000) / puzzles.length;
          await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
        }
      })();
      while (Date.now() - started < CHAOS_S * 1000) {
        await new Promise((r) => setTimeout(r, 2_000));
        // A worker that asked the model in the last half second, so that each kill cuts runs off
        // (the short chaos has only a few kills to interrupt a run with); any worker if none did.
        const live = [...f.workers];
        const busy = live.filter((w) => f.server.served.some((s) => s.pid === w.pid && s.at > Date.now() - 500));
        const pool = busy.length > 0 ? busy : live;
        const victim = pool[Math.floor(Math.random() * pool.length)]!;
        killedAt.set(victim.pid!, Date.now());
        victim.kill('SIGKILL');
        await exited(victim);
        f.start({ CONCURRENCY: '8' });
      }
      await submitting;
      const chaosOver = Date.now();
      const results = new Map<string, unknown>();
      await Promise.all(puzzles.map(async (p) => results.set(p, await f.queue.result(ids.get(p)!, { signal: AbortSignal.timeout(60_000) }))));
      for (const w of f.workers) w.kill('SIGTERM');
      await Promise.all([...f.workers].map(exited));
      const allDone = Date.now();

      // Every run finished with the uninterrupted run's result.
      const statuses = await f.queue.list({ limit: 1000 });
      expect(statuses.filter((s) => s.status === 'finished')).toHaveLength(RUNS);
      let resumed = 0;
      let calls = 0;
      for (const puzzle of puzzles) {
        const runId = ids.get(puzzle)!;
        const ref = await reference(puzzle);
        calls += ref.calls;
        expect(results.get(puzzle)).toEqual(ref.summary);
        const log = await events(f.store, runId);
        resumed += count(log, 'run.resumed') > 0 ? 1 : 0;
        // Each call the uninterrupted run makes completed exactly once in the log...
        expect(count(log, 'llm.completed')).toBe(ref.calls);
        // ...and the server served no call the log does not hold (a call cut off by a kill stays open in it).
        const served = f.server.served.filter((s) => s.puzzle === puzzle).length;
        expect(served).toBeGreaterThanOrEqual(ref.calls);
        expect(served).toBeLessThanOrEqual(count(log, 'llm.requested'));
      }
      expect(f.server.served.filter((s) => s.puzzle === '?')).toEqual([]);

      // No run was driven by two workers at once, and every call was asked by a worker that had taken its run.
      const intervals = driveIntervals(readWorkerLog(f.log), killedAt);
      for (const [runId, list] of intervals) {
        const sorted = [...list].sort((a, b) => a.from - b.from);
        for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.from, `run ${runId} taken while another worker drove it`).toBeGreaterThanOrEqual(sorted[i - 1]!.to);
      }
      const byPuzzle = new Map([...ids].map(([p, id]) => [p, id]));
      for (const call of f.server.served) {
        const list = intervals.get(byPuzzle.get(call.puzzle)!) ?? [];
        // (When a killed worker's last request was read is up to this busy process: only the start is compared.)
        expect(list.some((iv) => iv.pid === call.pid && call.at >= iv.from), `call for ${call.puzzle} by ${call.pid} at ${call.at}: ${JSON.stringify(list)}`).toBe(true);
      }
      // The chaos did interrupt runs: some were taken over and resumed from their logs.
      expect(resumed).toBeGreaterThan(0);
      console.log(`fleet: ${RUNS} runs, ${killedAt.size} kills, ${resumed} runs resumed by another worker, ${f.server.served.length} model calls served (${calls} without crashes), chaos ${Math.round((chaosOver - started) / 1000)} s, all settled ${Math.round((allDone - started) / 1000)} s, checked ${Math.round((Date.now() - started) / 1000)} s`);
    },
    120_000,
  );
});
