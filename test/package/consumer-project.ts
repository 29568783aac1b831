// The package as a user installs it: `npm pack` of the built dist (its `files`, `exports` and
// `typesVersions` exactly as published), unpacked into a temporary project's node_modules. Shared
// by the consumer tests, the doc test and the new user's walk.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOnce } from '../helpers/build-lock.js';
import { ensureDist } from '../helpers/ensure-dist.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The path of the package's tarball, packed from the current dist (once per build of dist, under
 * a lock, into .tmp/pack/<dist's time>/).
 */
export async function packedTarball(): Promise<string> {
  await ensureDist();
  const dir = `${root}.tmp/pack/${Math.floor(statSync(`${root}dist/index.js`).mtimeMs)}`;
  const tarball = () => (existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith('.tgz')) : undefined);
  await buildOnce(`${root}.tmp/pack.lock`, () => tarball() !== undefined, () => {
    const partial = `${dir}.partial`;
    mkdirSync(partial, { recursive: true });
    execFileSync('npm', ['pack', '--pack-destination', partial], { cwd: root, stdio: 'ignore' });
    execFileSync('mv', [partial, dir]);
  });
  return join(dir, tarball()!);
}

/**
 * A temporary project (realpath: tsc lists real paths) whose node_modules holds the unpacked
 * package at @tot/core and, linked from the repository's node_modules, every other package there:
 * its dependencies and the clients and drivers a user adds beside it.
 */
export async function consumerProject(prefix = 'tot-consumer-'): Promise<string> {
  const tarball = await packedTarball();
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@tot/core'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', join(modules, '@tot/core'), '--strip-components=1']);
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name.startsWith('.') || name === '@tot') continue;
    if (name.startsWith('@')) {
      mkdirSync(join(modules, name), { recursive: true });
      for (const scoped of readdirSync(join(root, 'node_modules', name))) symlinkSync(join(root, 'node_modules', name, scoped), join(modules, name, scoped), 'junction');
    } else symlinkSync(join(root, 'node_modules', name), join(modules, name), 'junction');
  }
  return dir;
}
