// Finds the words of the specifications the library was written from ("seed 004", "§3.2") in what
// users read. A user never saw those documents, so the words mean nothing to them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** "seed 000" to "seed 004" (or "seed-004"), "the seed", "the seed protocol", and section numbers such as "§3" or "§ 4.2". */
export const jargon = /seed[ -]?00\d|§\s?\d|\bthe seed\b|\bseed protocol\b/i;

export interface Hit {
  /** `file:line`, the file relative to the folder the scan was given. */
  where: string;
  text: string;
}

const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/** Every line of a text that holds jargon (a Markdown file, a .d.ts, a command's output). */
export function scanText(name: string, text: string): Hit[] {
  const hits: Hit[] = [];
  text.split('\n').forEach((line, i) => {
    if (jargon.test(line)) hits.push({ where: `${name}:${i + 1}`, text: line.trim() });
  });
  return hits;
}

/**
 * The jargon in a TypeScript source's string literals (error messages, help texts) and its TSDoc
 * comments (`/** … *\/`). Plain `//` comments are for maintainers and may cite the specifications.
 */
export function scanSource(name: string, text: string): Hit[] {
  // Parsing is the slow part: a file with no jargon anywhere has none where users read it.
  if (!jargon.test(text)) return [];
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const spans = new Map<number, string>();
  const comments = (pos: number) => {
    for (const range of [...(ts.getLeadingCommentRanges(text, pos) ?? []), ...(ts.getTrailingCommentRanges(text, pos) ?? [])]) {
      const comment = text.slice(range.pos, range.end);
      if (comment.startsWith('/**')) spans.set(range.pos, comment);
    }
  };
  const visit = (node: ts.Node) => {
    comments(node.pos);
    comments(node.end);
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) spans.set(node.getStart(file), node.getText(file));
    ts.forEachChild(node, visit);
  };
  visit(file);
  comments(file.endOfFileToken.pos);
  const hits: Hit[] = [];
  for (const [start, span] of [...spans].sort(([a], [b]) => a - b)) {
    span.split('\n').forEach((line, i) => {
      if (jargon.test(line)) hits.push({ where: `${name}:${lineOf(text, start) + i}`, text: line.trim() });
    });
  }
  return hits;
}

/** Every file under `dir` (recursively) whose name ends with `suffix`. */
export function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => join(dir, f))
    .sort();
}

/** Scans files with `scan`, naming each relative to `root`. */
export function scanFiles(root: string, files: string[], scan: (name: string, text: string) => Hit[]): Hit[] {
  return files.flatMap((f) => scan(relative(root, f), readFileSync(f, 'utf8')));
}

/** Hits as one line each, for an assertion message that points at the places to fix. */
export const report = (hits: Hit[]) => hits.map((h) => `${h.where}: ${h.text}`).join('\n');
