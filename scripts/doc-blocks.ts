/**
 * The TypeScript code blocks of the README and the guides (docs/*.md), for the doc test
 * (test/docs/doc-blocks.test.ts), which type-checks every block against the built package as a
 * consumer imports it and runs the blocks marked runnable.
 *
 * A block is a ```ts or ```typescript fence. An HTML comment on the line just before the fence
 * (invisible on GitHub and npm) says what else to do with it:
 *
 *   <!-- doctest: run -->                   also run it: it must exit 0
 *   <!-- doctest: skip (why it cannot compile) -->   neither; the reason is required
 *
 *   npx tsx scripts/doc-blocks.ts           lists the blocks (file:line, mode)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export type DocBlockMode = 'check' | 'run' | 'skip';

export interface DocBlock {
  /** The markdown file, relative to the repository: `README.md`, `docs/runs.md`. */
  file: string;
  /** The line of the opening fence, counting from 1. */
  line: number;
  mode: DocBlockMode;
  /** Why a skipped block is not compiled ('' unless mode is skip). */
  reason: string;
  code: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\s*$/;
const MARKER = /^\s*<!--\s*doctest:\s*(\w+)\s*(.*?)\s*-->\s*$/;

/** A marker that is not `run` or `skip`, or a skip without its reason, is a mistake in the doc. */
export class DocMarkerError extends Error {}

/** The ts blocks of one markdown text, in order. */
export function docBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) {
      // Any other fence is skipped whole, so a ```ts inside a ```md example is not taken for a block.
      const other = /^\s*(`{3,}|~{3,})/.exec(lines[i]!);
      if (other) {
        const close = new RegExp(`^\\s*${other[1]![0]}{${other[1]!.length},}\\s*$`);
        while (++i < lines.length && !close.test(lines[i]!));
      }
      continue;
    }
    const [, indent, fence] = open;
    const close = new RegExp(`^\\s*${fence![0]}{${fence!.length},}\\s*$`);
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !close.test(lines[i]!)) body.push(lines[i]!.startsWith(indent!) ? lines[i]!.slice(indent!.length) : lines[i]!);
    const marker = start > 0 ? MARKER.exec(lines[start - 1]!) : null;
    let mode: DocBlockMode = 'check';
    let reason = '';
    if (marker) {
      const [, kind, rest] = marker;
      if (kind === 'run' && rest === '') mode = 'run';
      else if (kind === 'skip') {
        reason = rest!.replace(/^[(:—–-]\s*|\)$/g, '').trim();
        if (reason === '') throw new DocMarkerError(`${file}:${start + 1}: a doctest skip needs its reason: <!-- doctest: skip (why) -->`);
        mode = 'skip';
      } else throw new DocMarkerError(`${file}:${start + 1}: unknown doctest marker "${lines[start - 1]!.trim()}" (run, or skip with a reason)`);
    }
    blocks.push({ file, line: start + 1, mode, reason, code: `${body.join('\n')}\n` });
  }
  return blocks;
}

/** The markdown files the doc test reads: README.md and docs/*.md, relative to `root`. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

/** Every ts block of README.md and docs/*.md under `root`. */
export function allDocBlocks(root: string): DocBlock[] {
  return docFiles(root).flatMap((file) => docBlocks(file, readFileSync(join(root, file), 'utf8')));
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') {
  const root = fileURLToPath(new URL('..', import.meta.url));
  for (const b of allDocBlocks(root)) console.log(`${b.file}:${b.line}\t${b.mode}${b.reason ? `\t${b.reason}` : ''}`);
}
