import type { ThoughtNode } from './types.js';

/** One-line label text for diagrams: content (whitespace folded, truncated) plus the score if any. */
export function nodeLabel(node: ThoughtNode, maxLength: number, showScores: boolean): { text: string; score: string | undefined } {
  const folded = node.content.replace(/\s+/g, ' ').trim();
  const text = folded.length > maxLength ? `${folded.slice(0, Math.max(1, maxLength - 1))}…` : folded;
  const score = showScores && node.evaluation !== null ? `score ${Number(node.evaluation.score.toFixed(2))}` : undefined;
  return { text, score };
}

/** The nodes to highlight: the given ids, or none. */
export function highlightSet(ids: readonly string[] | undefined): Set<string> {
  return new Set(ids ?? []);
}
