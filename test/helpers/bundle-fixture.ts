// A test fixture or an example (a script a test spawns, often many times) bundled with its sources
// into one file, so that a process starts in a fraction of the time tsx takes to compile the
// sources on every start (0.5 s of CPU against 2 s for an example). Built once per state of the
// sources, into .tmp/fixtures/<name>/<sources' time>/.
import { execFileSync } from 'node:child_process';
import { build, type Plugin } from 'esbuild';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildOnce, newest } from './build-lock.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Each bundled file of the repository keeps its own `import.meta.url`: the examples and fixtures
 * find their data beside them (`new URL('../../bench/fixtures/…', import.meta.url)`), which the
 * bundle, written elsewhere, would otherwise move.
 */
const ownImportMetaUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

/** The path of `fixture` (relative to the repository) bundled from the current sources; builds it when they changed. */
export async function bundleFixture(fixture: string): Promise<string> {
  // Named by its whole path: the examples are all main.ts. Rebuilt when a file beside it changes
  // too, which it may import.
  const name = fixture.replace(/\.ts$/, '').replaceAll('/', '-');
  const sources = Math.floor(Math.max(newest(`${root}src`), newest(`${root}${dirname(fixture)}`)));
  const base = `${root}.tmp/fixtures/${name}`;
  const dir = `${base}/${sources}`;
  await buildOnce(`${dir}.lock`, () => existsSync(`${dir}/${name}.js`), async () => {
    const tmp = `${dir}.partial`;
    rmSync(tmp, { recursive: true, force: true });
    // esbuild in this process: `npx tsup` took seconds per fixture to start. Packages stay
    // imports, resolved from the repository's node_modules as the sources resolve them.
    await build({ entryPoints: [`${root}${fixture}`], tsconfig: `${root}tsconfig.json`, outfile: `${tmp}/${name}.js`, bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'error', plugins: [ownImportMetaUrl] });
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
