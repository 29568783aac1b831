import { highlightSet, nodeLabel } from './label.js';
import type { ThoughtNode } from './types.js';

/**
 * Options of {@link ThoughtTree.toDot}.
 *
 * @example
 * ```ts
 * import type { DotOptions } from '@tot/core';
 *
 * const options: DotOptions = { rankdir: 'LR', highlight: ['root', 'node_1_1'] };
 * ```
 */
export interface DotOptions {
  /** Default `'TB'`. */
  rankdir?: 'TB' | 'LR';
  /** Longest label before it is cut with `…`. Default 60. */
  maxLabelLength?: number;
  /** Show evaluation scores in labels. Default true. */
  showScores?: boolean;
  /** Node ids to draw in bold (e.g. the best path). */
  highlight?: readonly string[];
}

const STYLE: Record<ThoughtNode['status'], string> = {
  pending: 'color="#999999"',
  expanded: 'color="#4a7bd0"',
  pruned: 'color="#bbbbbb", fontcolor="#999999", style="dashed"',
  terminal: 'color="#2f9e44", style="filled", fillcolor="#e9f8ec"',
};

function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** Renders nodes as a Graphviz digraph; used by {@link ThoughtTree.toDot}. */
export function toDot(tree: { all(): Iterable<ThoughtNode> }, options: DotOptions): string {
  const maxLength = options.maxLabelLength ?? 60;
  const showScores = options.showScores ?? true;
  const highlight = highlightSet(options.highlight);
  const lines = ['digraph ThoughtTree {', `  rankdir=${options.rankdir ?? 'TB'};`, '  node [shape=box, fontname="Helvetica"];'];
  const nodes = [...tree.all()];
  for (const node of nodes) {
    const { text, score } = nodeLabel(node, maxLength, showScores);
    const label = score === undefined ? text : `${text}\n${score}`;
    const bold = highlight.has(node.id) ? ', penwidth=3' : '';
    lines.push(`  ${quote(node.id)} [label=${quote(label)}, ${STYLE[node.status]}${bold}];`);
  }
  for (const node of nodes) {
    for (const child of node.childrenIds) lines.push(`  ${quote(node.id)} -> ${quote(child)};`);
  }
  lines.push('}');
  return lines.join('\n');
}
