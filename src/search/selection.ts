import type { ThoughtNode } from '../tree/types.js';

const scoreOf = (node: ThoughtNode) => node.evaluation?.score ?? 0;

/** The best `k` nodes by score; a stable sort, so ties keep their order in `nodes` (generation order). */
export function selectGreedy(nodes: readonly ThoughtNode[], k: number): ThoughtNode[] {
  return nodes
    .map((node, index) => ({ node, index }))
    .sort((a, b) => scoreOf(b.node) - scoreOf(a.node) || a.index - b.index)
    .slice(0, Math.max(0, k))
    .map(({ node }) => node);
}

/** `k` nodes drawn without replacement with probability proportional to score (uniform if all are 0), in draw order. */
export function selectSample(nodes: readonly ThoughtNode[], k: number, random: () => number): ThoughtNode[] {
  const pool = [...nodes];
  const out: ThoughtNode[] = [];
  while (out.length < k && pool.length > 0) {
    const weights = pool.map(scoreOf);
    const total = weights.reduce((a, b) => a + b, 0);
    let pick = pool.length - 1;
    if (total <= 0) pick = Math.floor(random() * pool.length);
    else {
      let r = random() * total;
      for (let i = 0; i < pool.length; i++) {
        r -= weights[i]!;
        if (r < 0) {
          pick = i;
          break;
        }
      }
    }
    out.push(pool.splice(pick, 1)[0]!);
  }
  return out;
}
