import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const entries = ['index', 'testing/index', 'sqlite/index', 'postgres/index', 'ai-sdk/index', 'openai/index'];
const lock = `${root}.tmp/dist-build.lock`;

const built = () => entries.every((e) => ['.cjs', '.js', '.d.cts', '.d.ts'].every((ext) => existsSync(`${root}dist/${e}${ext}`)));

/**
 * Builds dist once when it is missing (`npm test` on a fresh clone; CI builds first). Test files
 * run in parallel and tsup clears dist first, so builders take a lock directory in turn.
 */
export async function ensureDist(): Promise<void> {
  mkdirSync(`${root}.tmp`, { recursive: true });
  for (;;) {
    if (built()) return;
    try {
      mkdirSync(lock);
    } catch {
      // Another file is building; a lock older than five minutes was left by a killed run.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    try {
      if (!built()) execFileSync('npx', ['tsup'], { cwd: root, stdio: 'ignore' });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
