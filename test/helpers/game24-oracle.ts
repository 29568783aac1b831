/**
 * A Game of 24 "model" for the demo's live mode: it reads the demo's proposal and value prompts
 * and answers as a perfect player would (only steps from which 24 can still be reached, scores
 * from an exact search), in the JSON the prompts ask for. Served over the OpenAI wire format, it
 * lets a test run `npm run demo` live, end to end through the real `openai` client.
 */
import { chatCompletion, lastUserMessage, type WireHandler } from './openai-wire-server.js';

interface Term {
  value: number;
  expression: string;
}

const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;

/** Every way to combine two of the terms with + - * /, as the terms left after it. */
function combinations(terms: Term[]): { a: Term; op: string; b: Term; result: Term; rest: Term[] }[] {
  const out: { a: Term; op: string; b: Term; result: Term; rest: Term[] }[] = [];
  for (let i = 0; i < terms.length; i++) {
    for (let j = 0; j < terms.length; j++) {
      if (i === j) continue;
      const [a, b] = [terms[i]!, terms[j]!];
      const rest = terms.filter((_, k) => k !== i && k !== j);
      const ops: [string, number][] = [['+', a.value + b.value], ['-', a.value - b.value], ['*', a.value * b.value]];
      if (b.value !== 0) ops.push(['/', a.value / b.value]);
      for (const [op, value] of ops) out.push({ a, op, b, rest, result: { value, expression: `(${a.expression} ${op} ${b.expression})` } });
    }
  }
  return out;
}

/** An expression over the terms that equals 24, if there is one. */
function solve(terms: Term[]): string | undefined {
  if (terms.length === 1) return near(terms[0]!.value, 24) ? terms[0]!.expression : undefined;
  for (const c of combinations(terms)) {
    const found = solve([...c.rest, c.result]);
    if (found) return found;
  }
  return undefined;
}

const termsOf = (numbers: number[]): Term[] => numbers.map((n) => ({ value: n, expression: String(n) }));

/** The puzzle, and the numbers left after the last step (none: the puzzle's). */
function readPrompt(prompt: string): { puzzle: number[]; left: number[]; lastStep: string | undefined } {
  const puzzle = (/Puzzle: ([\d ]+)/.exec(prompt)?.[1] ?? '').trim().split(/\s+/).map(Number);
  const steps = [...prompt.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]!);
  const lastStep = steps.at(-1);
  const left = lastStep === undefined ? puzzle : (/\(left: ([^)]*)\)/.exec(lastStep)?.[1] ?? '').trim().split(/\s+/).filter(Boolean).map(Number);
  return { puzzle, left, lastStep };
}

/** Next steps in the demo's form, "a op b = c (left: …)", that keep 24 reachable (whole numbers only). */
function proposals(left: number[], k: number): string[] {
  const steps: string[] = [];
  for (const c of combinations(termsOf(left))) {
    if (!Number.isInteger(c.result.value) || c.result.value < 0) continue;
    const rest = [...c.rest.map((t) => t.value), c.result.value].sort((x, y) => x - y);
    if (!solve(termsOf(rest))) continue;
    const step = `${c.a.value} ${c.op} ${c.b.value} = ${c.result.value} (left: ${rest.join(' ')})`;
    if (!steps.includes(step)) steps.push(step);
    if (steps.length === k) break;
  }
  return steps;
}

/** The wire handler: a proposal or a score for each request, `n` identical choices when asked for `n`. */
export const game24Oracle: WireHandler = (request) => {
  const prompt = lastUserMessage(request);
  const { puzzle, left, lastStep } = readPrompt(prompt);
  let reply: string;
  if (/propose up to/i.test(prompt)) {
    const k = Number(/propose up to (\d+)/i.exec(prompt)?.[1] ?? 3);
    const candidates =
      left.length === 1 && near(left[0]!, 24)
        ? [{ content: `Answer: ${solve(termsOf(puzzle))!.replace(/^\((.*)\)$/, '$1')} = 24`, actionType: 'answer' }]
        : proposals(left, k).map((content) => ({ content, actionType: /[-+*/]/.exec(content.split('=')[0]!)?.[0] ?? '+' }));
    reply = JSON.stringify({ candidates });
  } else {
    const reachable = lastStep !== undefined && /^answer:/i.test(lastStep) ? true : solve(termsOf(left)) !== undefined;
    reply = JSON.stringify({ score: reachable ? 10 : 0, confidence: 1, reasoning: reachable ? 'an exact search reaches 24' : 'no combination reaches 24' });
  }
  const n = typeof request.body.n === 'number' ? request.body.n : 1;
  return { json: chatCompletion(Array.from({ length: n }, () => reply), { model: request.body.model }) };
};
