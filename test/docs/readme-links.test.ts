// The README is read on npm and GitHub, away from the guides, so its links are absolute: the guides
// on the documentation site that `npm run docs` builds (typedoc, docs/api), and the repository.
// Each link must name a page that build makes, so that a renamed guide cannot leave a dead link.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { homepage: string; bugs: string; repository: { url: string } };
const typedoc = JSON.parse(readFileSync(`${root}typedoc.json`, 'utf8')) as { projectDocuments: string[]; entryPoints: string[] };
const readme = readFileSync(`${root}README.md`, 'utf8');
const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

/** A guide's page name as typedoc 0.28 makes it: its front matter title, else its file name, with characters unsafe in a file name replaced by `_`. */
function guidePage(file: string): string {
  const text = readFileSync(`${root}${file}`, 'utf8');
  const title = /^---\n[\s\S]*?^title:\s*(.+?)\s*$[\s\S]*?^---$/m.exec(text)?.[1] ?? file.replace(/^.*\//, '').replace(/\.md$/, '');
  return `documents/${[...title].map((c) => (/[\p{L}\p{N}()+,\-._]/u.test(c) ? c : '_')).join('')}.html`;
}

const links = [...readme.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((m) => m[1]!);
const siteLinks = links.filter((l) => l.startsWith(pkg.homepage));

describe('the README links', () => {
  it('are all absolute, so they work on npm and in node_modules', () => {
    expect([...readme.matchAll(/\]\((?!https?:\/\/|#)([^)]+)\)/g)].map((m) => m[1])).toEqual([]);
  });

  it('link to the documentation site at the homepage of package.json', () => {
    expect(siteLinks.length).toBeGreaterThan(5);
  });

  it('name guides that typedoc builds, or the API reference of an entry point', () => {
    const pages = new Map(typedoc.projectDocuments.map((f) => [guidePage(f), f]));
    const modules = new Set(typedoc.entryPoints.map((e) => `modules/${e.replace(/^src\//, '').replace(/\/index\.ts$|\.ts$/, '')}.html`));
    const dead = siteLinks
      .map((l) => l.slice(pkg.homepage.length).replace(/#.*$/, '') || 'index.html')
      .filter((page) => page !== 'index.html' && !pages.has(page) && !modules.has(page));
    expect(dead, `pages typedoc makes: ${[...pages.keys()].join(', ')}`).toEqual([]);
  });

  it.skipIf(!existsSync(`${root}docs/api/index.html`))("name pages the last `npm run docs` wrote (docs/api)", () => {
    const missing = siteLinks.map((l) => l.slice(pkg.homepage.length).replace(/#.*$/, '') || 'index.html').filter((page) => !existsSync(`${root}docs/api/${page}`));
    expect(missing).toEqual([]);
  });

  it('to the repository and its issues come from package.json', () => {
    const github = links.filter((l) => l.startsWith('https://github.com/'));
    expect(github.filter((l) => !l.startsWith(`${repo}/`) && l !== pkg.bugs)).toEqual([]);
  });
});
