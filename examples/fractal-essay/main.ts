/**
 * Seed 002's §7 example: an essay on AI and art, planned in three paragraphs, one of which fails
 * its requirement and is redone — run with a scripted model that plays think and eval step by
 * step. Prints each step and the frame tree.
 *
 * Run: npm run example:fractal-essay
 */
import { FractalSolver } from '@tot/core/fractal';
import { scriptedModel } from '@tot/core/testing';

const goalOf = (text: string) => /Your goal: (.*)/.exec(text)?.[1] ?? '';
const model = scriptedModel({
  rules: [
    // Think on the root: a living plan in plain language.
    { name: 'plan', when: (r) => r.tags?.role === 'think' && goalOf(r.messages[0]!.content).startsWith('Write a short essay'), reply: '{"type": "TODO", "description": "Three paragraphs:\\n [] generative art (with a DALL·E example)\\n [] assisted creation (a moving story)\\n [] art criticism"}' },
    // Think on the children: write the paragraph (the first try of the story is too short).
    { name: 'generative art', when: (r) => r.tags?.role === 'think' && goalOf(r.messages[0]!.content).startsWith('Generative art'), reply: '{"type": "RETURN", "description": "Generative art paragraph written, with the DALL·E example, 140 words."}' },
    { name: 'story, first try', when: (r) => r.tags?.role === 'think' && goalOf(r.messages[0]!.content).startsWith('Assisted creation'), reply: '{"type": "RETURN", "description": "FAILED: the story has 40 words, under the 100 required."}', times: 1 },
    { name: 'story, redo', when: (r) => r.tags?.role === 'think' && goalOf(r.messages[0]!.content).startsWith('Assisted creation'), reply: '{"type": "RETURN", "description": "Assisted creation paragraph written: a painter who lost her sight works with an AI, 120 words."}' },
    { name: 'criticism', when: (r) => r.tags?.role === 'think', reply: '{"type": "RETURN", "description": "Art criticism paragraph written, 110 words."}' },
    // Eval on the root: next item, redo on failure, or return.
    { name: 'eval: start', when: (r) => r.tags?.role === 'eval' && r.messages[0]!.content.includes('(nothing yet)'), reply: '{"type": "CALL", "description": "Generative art paragraph: include a DALL·E example, at least 100 words, engaging"}' },
    { name: 'eval: redo', when: (r) => r.tags?.role === 'eval' && /\d\. FAILED/.test(r.messages[0]!.content) && !r.messages[0]!.content.includes('a painter'), reply: '{"type": "CALL", "description": "Assisted creation paragraph: a moving story, at least 100 words (redo: the first was too short)"}' },
    { name: 'eval: story', when: (r) => r.tags?.role === 'eval' && !r.messages[0]!.content.includes('Assisted creation paragraph written') && !r.messages[0]!.content.includes('FAILED'), reply: '{"type": "CALL", "description": "Assisted creation paragraph: a moving story, at least 100 words"}' },
    { name: 'eval: criticism', when: (r) => r.tags?.role === 'eval' && !r.messages[0]!.content.includes('Art criticism paragraph written'), reply: '{"type": "CALL", "description": "Art criticism paragraph"}' },
    { name: 'eval: done', when: (r) => r.tags?.role === 'eval', reply: '{"type": "RETURN", "description": "Essay complete: three paragraphs (generative art, assisted creation, criticism), about 370 words."}' },
  ],
});

const solver = new FractalSolver({ model, maxDepth: 2 });
solver.on('frame.thought', (e) => console.log(`think ${e.frameId}: ${e.output.type} — ${e.output.description.split('\n')[0]}`));
solver.on('frame.evaluated', (e) => console.log(`eval  ${e.frameId} (done: ${e.done.length}): ${e.output.type} — ${e.output.description}`));
const result = await solver.run('Write a short essay on "AI and art" (800–1200 words)');
console.log(`\n${result.status}: ${result.result}`);
console.log(`\n${result.root.toMermaid()}`);
console.log(`\n${result.stats.frames} frames, ${result.stats.steps} steps, ${result.stats.llmCalls} model calls`);
