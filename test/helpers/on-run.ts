import type { RunEventBase } from '../../src/index.js';
import { RunEmitter } from '../../src/run/run-emitter.js';
import { startRun, type Run } from '../../src/run/run.js';

/** Runs `main` on a run of the kernel (concurrency as given) and returns its events and what `main` settled with. */
export async function onKernelRun(concurrency: number | undefined, main: (run: Pick<Run, 'guard' | 'runModel'>) => Promise<unknown>, signal?: AbortSignal): Promise<{ events: RunEventBase[]; settled: PromiseSettledResult<unknown> }> {
  const events: RunEventBase[] = [];
  let settled: PromiseSettledResult<unknown> | undefined;
  await startRun(
    { runner: 'test', what: 'test', emitter: new RunEmitter(), options: { strict: false } as never, ...(concurrency === undefined ? {} : { concurrency }), config: {} },
    { onEvent: (e) => events.push(e), ...(signal ? { signal } : {}) },
    { problem: 'p' },
    (run) => ({
      async main() {
        [settled] = await Promise.allSettled([main(run)]);
      },
      result: (end) => ({ ...end, stopReason: 'completed' }) as never,
    }),
  ).catch(() => undefined);
  return { events, settled: settled! };
}
