// One build at a time across test files and vitest processes: a lock directory (mkdir is atomic),
// taken in turn by whoever finds the output missing.
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A lock older than this was left by a killed run. */
const STALE_MS = 300_000;

/**
 * Runs `build` holding the lock directory `lock`, unless `done()` says the output is already
 * there; while another holder builds, waits and asks `done()` again.
 */
export async function buildOnce(lock: string, done: () => boolean, build: () => void | Promise<void>): Promise<void> {
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    if (done()) return;
    try {
      mkdirSync(lock);
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > STALE_MS) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      if (!done()) await build();
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
    return;
  }
}

/** The newest modification time of a file, or of any file under a directory: what a build's output must be newer than. */
export const newest = (path: string): number => {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
};
