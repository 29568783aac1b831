// A new user's first minutes: an empty project, `npm install` of the packed package and zod (from
// npm's cache or the registry, as the README's Install section says), the README's Example pasted
// into a file, run with Node. It prints what the README says it prints.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docBlocks } from '../../scripts/doc-blocks.js';
import { packedTarball, root } from './consumer-project.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
/** The first ts block after the "## Example" heading, and the backquoted lines of the "It prints" sentence after it. */
function readmeExample(): { code: string; prints: string[] } {
  const section = readme.slice(readme.search(/^## Example\b/m));
  const block = docBlocks('README.md', section)[0];
  if (!block) throw new Error('README.md has no ```ts block under "## Example"');
  const after = section.slice(section.indexOf(block.code) + block.code.length);
  // Up to the sentence's end: a colon or full stop outside the backquotes.
  const sentence = /It prints ((?:`[^`]*`|[^`:.])*)/.exec(after)?.[1] ?? '';
  return { code: block.code, prints: [...sentence.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) };
}

let dir: string;

beforeAll(async () => {
  const tarball = await packedTarball();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'tot-new-user-')));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
  // The README's install line, with the package from its tarball: npm resolves zod and every
  // dependency as it would for a user, from its cache when it has them.
  execFileSync('npm', ['install', tarball, 'zod', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'pipe' });
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the README's example, in a new project", () => {
  it('says what it prints', () => {
    expect(readmeExample().prints.length).toBeGreaterThan(0);
  });

  it('installs, runs as pasted, and prints what the README says', () => {
    const { code, prints } = readmeExample();
    writeFileSync(join(dir, 'example.ts'), code);
    // tsx, as the README runs TypeScript; the package and zod come from the project's node_modules.
    const r = spawnSync(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'example.ts'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(prints);
  }, 90_000);
});
