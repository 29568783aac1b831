// The built package (dist/), which the package, command and MCP tests run as users do. It is built
// once per `npm test`, before any test file, by test/setup/dist.ts; test files only check it is there.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOnce, newest } from './build-lock.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const entries = ['index', 'testing/index', 'sqlite/index', 'postgres/index', 'ai-sdk/index', 'openai/index', 'mcp/index', 'viewer/index', 'search/index', 'graph/index', 'sessions/index', 'deliberation/index', 'fractal/index', 'cot/index'];
const files = [...entries.flatMap((e) => ['.cjs', '.js', '.d.cts', '.d.ts'].map((ext) => `dist/${e}${ext}`)), 'dist/cli/tot.js'];
/** The lock every dist build takes: the tests' and a developer's own `npx tsup` beside them. */
export const distLock = `${root}.tmp/dist-build.lock`;

/** Every entry point of dist is there. */
export const distBuilt = (): boolean => files.every((f) => existsSync(`${root}${f}`));

/** dist is there and no source, nor the build's configuration, changed since it was built. */
export const distCurrent = (): boolean => {
  if (!distBuilt()) return false;
  const builtAt = Math.min(...files.map((f) => statSync(`${root}${f}`).mtimeMs));
  return builtAt >= Math.max(newest(`${root}src`), newest(`${root}tsup.config.ts`), newest(`${root}package.json`));
};

/**
 * Builds dist (tsup) under the shared lock when it is missing, or with `current: true` when it is
 * also older than the sources. tsup empties dist first, so only the global setup rebuilds a stale
 * one, before any test file reads it.
 */
export async function ensureDist(options: { current?: boolean } = {}): Promise<void> {
  await buildOnce(distLock, options.current ? distCurrent : distBuilt, () => {
    // tsup's errors go to the thrown error: a build that fails says why.
    execFileSync('npx', ['tsup'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  });
}
