// A test fixture (a script a test spawns, often many times) bundled with its sources into one
// file, so that a process starts in a fraction of the time tsx takes to compile the sources on
// every start. Built once per state of the sources, into .tmp/fixtures/<name>/<sources' time>/.
import { execFileSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOnce, newest } from './build-lock.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The path of `fixture` (relative to the repository) bundled from the current sources; builds it when they changed. */
export async function bundleFixture(fixture: string): Promise<string> {
  // Named by its whole path: the examples are all main.ts. Rebuilt when a file beside it changes
  // too, which it may import.
  const name = fixture.replace(/\.ts$/, '').replaceAll('/', '-');
  const sources = Math.floor(Math.max(newest(`${root}src`), newest(`${root}${dirname(fixture)}`)));
  const base = `${root}.tmp/fixtures/${name}`;
  const dir = `${base}/${sources}`;
  await buildOnce(`${dir}.lock`, () => existsSync(`${dir}/${name}.js`), () => {
    const tmp = `${dir}.partial`;
    rmSync(tmp, { recursive: true, force: true });
    // esbuild in this process: `npx tsup` took seconds per fixture to start. Packages stay
    // imports, resolved from the repository's node_modules as the sources resolve them.
    buildSync({ entryPoints: [`${root}${fixture}`], tsconfig: `${root}tsconfig.json`, outfile: `${tmp}/${name}.js`, bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'error' });
    renameSync(tmp, dir);
    // Builds of older sources go after an hour (another vitest process may still be running one).
    for (const old of readdirSync(base)) {
      const path = `${base}/${old}`;
      if (old !== String(sources) && !old.endsWith('.lock') && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
    }
  });
  return `${dir}/${name}.js`;
}

/** Runs `fixture` bundled (see {@link bundleFixture}) under plain node, and returns what it printed. */
export async function runBundled(fixture: string): Promise<string> {
  return execFileSync(process.execPath, [await bundleFixture(fixture)], { encoding: 'utf8' });
}
