/**
 * Grows a Tree of Thoughts for the Game of 24 puzzle "4 9 10 13" with a beam of two, using a
 * scripted model in place of an LLM, and prints the tree as Mermaid with the best path.
 *
 * Run: npm run demo
 */
import { z } from 'zod';
import { Budget, generateStructured, ThoughtTree, UsageMeter, withBudget, withUsage, type ThoughtNode } from '@tot/core';
import { scriptedModel } from '@tot/core/testing';

const proposalSchema = z.object({
  steps: z.array(z.object({ expression: z.string(), left: z.array(z.number()) })).min(1),
});
const valueSchema = z.object({
  score: z.number().min(0).max(10),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
});

// What a model might answer, keyed by the numbers left. Replies come in the shapes real models
// use: fenced JSON, bare JSON, JSON inside prose.
const proposals: Record<string, string> = {
  '4 9 10 13': '```json\n{"steps": [{"expression": "13 - 9 = 4", "left": [4, 4, 10]}, {"expression": "10 + 4 = 14", "left": [9, 13, 14]}, {"expression": "4 * 9 = 36", "left": [10, 13, 36]}]}\n```',
  '4 4 10': '{"steps": [{"expression": "10 - 4 = 6", "left": [4, 6]}, {"expression": "4 + 4 = 8", "left": [8, 10]}]}',
  '9 13 14': 'Options: {"steps": [{"expression": "14 - 13 = 1", "left": [1, 9]}, {"expression": "13 + 9 = 22", "left": [14, 22]}]}',
  '4 6': '{"steps": [{"expression": "4 * 6 = 24", "left": [24]}, {"expression": "6 - 4 = 2", "left": [2]}]}',
  '8 10': '{"steps": [{"expression": "8 + 10 = 18", "left": [18]}]}',
};
const values: Record<string, [number, string]> = {
  '4 4 10': [8, '(10 - 4) * 4 = 24 is within reach'],
  '9 13 14': [5, 'no obvious route, but sums are close'],
  '10 13 36': [1, '36 is too far from 24'],
  '4 6': [10, '4 * 6 = 24'],
  '8 10': [4, '8 + 10 = 18, short of 24'],
  '1 9': [1, '9 and 1 cannot make 24'],
  '14 22': [2, 'too large to combine into 24'],
  '24': [10, 'reached 24'],
  '2': [0, 'a single number other than 24'],
  '18': [0, 'a single number other than 24'],
};

const numbersOf = (text: string) => /Numbers left: ([\d ]+)/.exec(text)?.[1]?.trim() ?? '';
const model = scriptedModel({
  modelId: 'scripted-gpt',
  rules: [
    { name: 'propose', when: 'Propose next steps', reply: (r) => proposals[numbersOf(r.messages.at(-1)!.content)] ?? '{"steps": []}' },
    {
      name: 'value',
      when: 'How promising',
      reply: (r) => {
        const [score, reasoning] = values[numbersOf(r.messages.at(-1)!.content)] ?? [0, 'unknown state'];
        return JSON.stringify({ score, confidence: 0.9, reasoning });
      },
    },
  ],
});

const meter = new UsageMeter();
const budget = new Budget({ maxCalls: 40 });
const llm = withUsage(withBudget(model, { budget }), { meter });

const tree = new ThoughtTree({
  problem: 'Use 4 9 10 13 and + - * / to make 24.',
  taskId: 'game24-demo',
  taskType: 'math_reasoning',
  searchConfig: { strategy: 'bfs', maxDepth: 3, branchingFactor: 3, pruningThreshold: 3 },
  rootMetadata: { left: [4, 9, 10, 13] },
});
const leftOf = (node: ThoughtNode) => (node.metadata.left as number[]).join(' ');
const BEAM = 2;

let beam: ThoughtNode[] = [tree.root];
for (let depth = 1; depth <= tree.searchConfig.maxDepth && beam.length > 0; depth++) {
  const children: ThoughtNode[] = [];
  for (const parent of beam) {
    const { value } = await generateStructured(llm, {
      prompt: `Propose next steps for the Game of 24.\nNumbers left: ${leftOf(parent)}`,
      schema: proposalSchema,
      tags: { role: 'generator' },
    });
    children.push(...tree.addChildren(parent.id, value.steps.map((s) => ({ content: s.expression, actionType: 'equation', metadata: { left: s.left } }))));
  }
  for (const child of children) {
    const { value } = await generateStructured(llm, {
      prompt: `How promising is this state for reaching 24?\nNumbers left: ${leftOf(child)}`,
      schema: valueSchema,
      tags: { role: 'evaluator' },
    });
    tree.evaluate(child.id, value);
    if (leftOf(child) === '24') tree.markTerminal(child.id);
    else if (value.score < tree.searchConfig.pruningThreshold) tree.prune(child.id);
  }
  // Keep the best `BEAM` live children; ties keep generation order (the sort is stable).
  const live = children.filter((c) => tree.node(c.id).status === 'pending');
  beam = [...live].sort((a, b) => tree.node(b.id).evaluation!.score - tree.node(a.id).evaluation!.score).slice(0, BEAM);
  for (const dropped of live.filter((c) => !beam.includes(c))) tree.prune(dropped.id);
  if (children.some((c) => tree.node(c.id).status === 'terminal')) break;
}

const best = tree.bestPath();
tree.setSearchState({ currentDepth: best.at(-1)!.depth, frontier: tree.frontier().map((n) => n.id), bestPath: best.map((n) => n.id) });

console.log(tree.toMermaid({ highlight: best.map((n) => n.id) }));
console.log('\nBest path:');
for (const node of best) console.log(`  ${'  '.repeat(node.depth)}${node.content}${node.evaluation ? `  (score ${node.evaluation.score})` : ''}`);
const usage = meter.snapshot();
console.log(`\n${tree.size} nodes, ${usage.calls} model calls (${usage.byTag['role=generator']?.calls} generate, ${usage.byTag['role=evaluator']?.calls} evaluate), ${usage.totalTokens} tokens (estimated by the mock)`);
