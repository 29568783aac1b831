import type { ThoughtNode } from '../tree/types.js';

const scoreOf = (node: ThoughtNode) => node.evaluation?.score ?? 0;

/** The best `k` nodes by score; a stable sort, so ties keep their order in `nodes` (generation order). */
export function selectGreedy(nodes: readonly ThoughtNode[], k: number): ThoughtNode[] {
  // The best k kept in order as the nodes come (a beam is small: this is cheaper than sorting them all).
  const best: ThoughtNode[] = [];
  const scores: number[] = [];
  if (!(k >= 1)) return best;
  for (const node of nodes) {
    const score = scoreOf(node);
    // After every kept node scoring at least as much: ties keep generation order. (A NaN score
    // compares false, as it did in the sort: it goes after the nodes kept so far.)
    let at = scores.length;
    while (at > 0 && scores[at - 1]! < score) at -= 1;
    if (at >= k) continue;
    best.splice(at, 0, node);
    scores.splice(at, 0, score);
    if (best.length > k) {
      best.pop();
      scores.pop();
    }
  }
  return best;
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
