import { highlightSet, nodeLabel } from './label.js';
import type { ThoughtNode } from './types.js';
import { escapeMermaid } from '../internal/mermaid.js';

/**
 * Options of {@link ThoughtTree.toMermaid}.
 *
 * @example
 * ```ts
 * import type { MermaidOptions } from '@tot/core';
 *
 * const options: MermaidOptions = { direction: 'LR', maxLabelLength: 30, highlight: ['root', 'node_1_2'] };
 * ```
 */
export interface MermaidOptions {
  /** Default `'TD'`. */
  direction?: 'TD' | 'LR';
  /** Longest label before it is cut with `…`. Default 60. */
  maxLabelLength?: number;
  /** Show evaluation scores in labels. Default true. */
  showScores?: boolean;
  /** Node ids to draw in bold (e.g. the best path). */
  highlight?: readonly string[];
}

const SAFE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Words that Mermaid's flowchart grammar reserves and that break a diagram when used as node ids.
const RESERVED = new Set(['end', 'graph', 'subgraph', 'flowchart', 'style', 'class', 'classDef', 'click', 'linkStyle', 'default']);


/** Renders nodes as a Mermaid flowchart; used by {@link ThoughtTree.toMermaid}. */
export function toMermaid(tree: { all(): Iterable<ThoughtNode> }, options: MermaidOptions): string {
  const maxLength = options.maxLabelLength ?? 60;
  const showScores = options.showScores ?? true;
  const highlight = highlightSet(options.highlight);
  const ids = new Map<string, string>();
  const nodes = [...tree.all()];
  nodes.forEach((node, i) => ids.set(node.id, SAFE_ID.test(node.id) && !RESERVED.has(node.id) ? node.id : `n${i}`));
  const lines = [`graph ${options.direction ?? 'TD'}`];
  for (const node of nodes) {
    const { text, score } = nodeLabel(node, maxLength, showScores);
    const label = score === undefined ? escapeMermaid(text) : `${escapeMermaid(text)}<br/>${score}`;
    lines.push(`  ${ids.get(node.id)}["${label}"]`);
  }
  for (const node of nodes) {
    for (const child of node.childrenIds) lines.push(`  ${ids.get(node.id)} --> ${ids.get(child)}`);
  }
  lines.push(
    '  classDef pending fill:#fff,stroke:#999',
    '  classDef expanded fill:#eef5ff,stroke:#4a7bd0',
    '  classDef pruned fill:#f4f4f4,stroke:#bbb,color:#999,stroke-dasharray:4 3',
    '  classDef terminal fill:#e9f8ec,stroke:#2f9e44',
    '  classDef highlight stroke-width:3px',
  );
  for (const status of ['pending', 'expanded', 'pruned', 'terminal'] as const) {
    const members = nodes.filter((n) => n.status === status).map((n) => ids.get(n.id));
    if (members.length > 0) lines.push(`  class ${members.join(',')} ${status}`);
  }
  const bold = nodes.filter((n) => highlight.has(n.id)).map((n) => ids.get(n.id));
  if (bold.length > 0) lines.push(`  class ${bold.join(',')} highlight`);
  return lines.join('\n');
}
