/**
 * An offline Game of 24 world for comparing strategies: a generator that lists every move
 * (ordered pairs, so 4 + 6 and 6 + 4 both appear) and a noisy evaluator that knows, in exact
 * arithmetic, whether the numbers left can still reach 24, blurred with deterministic noise.
 */
import type { ThoughtEvaluator, ThoughtGenerator, ThoughtNode, ThoughtTree } from '@tot/core';
import { add, div, equals, mul, parseRational, rational, sub, type Rational } from '../game24/rational.js';

const show = (r: Rational) => (r.d === 1n ? `${r.n}` : `${r.n}/${r.d}`);
const parse = (text: string): Rational => {
  const [n, d] = text.split('/');
  return d === undefined ? parseRational(n!) : rational(BigInt(n!), BigInt(d));
};

/** The numbers left at a node: the root's puzzle, or the "(left: …)" of its step. */
export function numbersAt(tree: ThoughtTree, node: ThoughtNode): Rational[] {
  const text = node.parentId === null ? tree.problem : (/left: ([^)]*)\)/.exec(node.content)?.[1] ?? '');
  return text.trim().split(/\s+/).filter(Boolean).map(parse);
}

export const positionKey = (tree: ThoughtTree, node: ThoughtNode) => numbersAt(tree, node).map(show).sort().join(' ');

const OPS: [string, (a: Rational, b: Rational) => Rational | undefined][] = [
  ['+', add],
  ['-', sub],
  ['*', mul],
  ['/', (a, b) => (b.n === 0n ? undefined : div(a, b))],
];

function canReach24(numbers: Rational[]): boolean {
  if (numbers.length === 1) return equals(numbers[0]!, rational(24n));
  for (let i = 0; i < numbers.length; i++) {
    for (let j = 0; j < numbers.length; j++) {
      if (i === j) continue;
      const rest = numbers.filter((_, k) => k !== i && k !== j);
      for (const [, op] of OPS) {
        const value = op(numbers[i]!, numbers[j]!);
        if (value && canReach24([...rest, value])) return true;
      }
    }
  }
  return false;
}

export const moveGenerator: ThoughtGenerator = {
  async generate({ tree, parent }) {
    const numbers = numbersAt(tree, parent);
    const moves = [];
    for (let i = 0; i < numbers.length; i++) {
      for (let j = 0; j < numbers.length; j++) {
        if (i === j) continue;
        const rest = numbers.filter((_, k) => k !== i && k !== j);
        for (const [symbol, op] of OPS) {
          const value = op(numbers[i]!, numbers[j]!);
          if (!value) continue;
          moves.push({ content: `${show(numbers[i]!)} ${symbol} ${show(numbers[j]!)} = ${show(value)} (left: ${[...rest, value].map(show).join(' ')})`, actionType: symbol });
        }
      }
    }
    return moves;
  },
};

/** Deterministic noise in [-1, 1] from a string. */
function noise(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return ((h >>> 0) / 4_294_967_295) * 2 - 1;
}

export const noisyEvaluator: ThoughtEvaluator = {
  async evaluate({ tree, candidates }) {
    const evaluations = candidates.map((node) => {
      const reachable = canReach24(numbersAt(tree, node));
      // A sound judge, blurred: reachable states score 6 ± 4, dead ends 3 ± 3.
      const score = Math.min(10, Math.max(0, (reachable ? 6 : 3) + noise(node.content) * (reachable ? 4 : 3)));
      return { nodeId: node.id, score, confidence: 0.7, reasoning: reachable ? 'looks reachable' : 'looks hard' };
    });
    return { evaluations, ranking: [], pruningSuggestions: [] };
  },
};

export const isSolved = (node: ThoughtNode, tree: ThoughtTree) => {
  const left = numbersAt(tree, node);
  return left.length === 1 && equals(left[0]!, rational(24n));
};
