import { add, div, equals, mul, parseRational, rational, sub, type Rational } from './rational.js';

/** Evaluates `+ - * /` (also `×` `÷`) with parentheses exactly; throws on anything else. */
export function evaluateExpression(expression: string): Rational {
  const tokens = expression.replace(/×/g, '*').replace(/÷/g, '/').match(/\d+(?:\.\d+)?|[-+*/()]|\S/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const next = () => tokens[i++];
  const primary = (): Rational => {
    const t = next();
    if (t === undefined) throw new SyntaxError('unexpected end of expression');
    if (t === '(') {
      const value = sum();
      if (next() !== ')') throw new SyntaxError('missing )');
      return value;
    }
    if (t === '-') return sub(rational(0n), primary());
    if (/^\d/.test(t)) return parseRational(t);
    throw new SyntaxError(`unexpected "${t}"`);
  };
  const product = (): Rational => {
    let value = primary();
    while (peek() === '*' || peek() === '/') value = next() === '*' ? mul(value, primary()) : div(value, primary());
    return value;
  };
  const sum = (): Rational => {
    let value = product();
    while (peek() === '+' || peek() === '-') value = next() === '+' ? add(value, product()) : sub(value, product());
    return value;
  };
  const value = sum();
  if (i !== tokens.length) throw new SyntaxError(`unexpected "${tokens[i]}"`);
  return value;
}

/**
 * Checks a Game of 24 answer the way the Tree-of-Thoughts reference does: the last line of the
 * output, without `Answer:` and without what follows `=`, must use exactly the puzzle's numbers
 * and equal 24 — here in exact rational arithmetic.
 */
export function checkAnswer(puzzle: string, output: string): { valid: boolean; reason?: string } {
  const last = output.trim().split('\n').at(-1) ?? '';
  const expression = last.toLowerCase().replace('answer: ', '').split('=')[0] ?? '';
  const used = (expression.match(/\d+/g) ?? []).sort();
  const given = (puzzle.match(/\d+/g) ?? []).sort();
  if (used.join(' ') !== given.join(' ')) return { valid: false, reason: `uses ${used.join(' ') || 'no numbers'}, not ${given.join(' ')}` };
  try {
    const value = evaluateExpression(expression);
    return equals(value, rational(24n)) ? { valid: true } : { valid: false, reason: `equals ${value.n}/${value.d}, not 24` };
  } catch (error) {
    return { valid: false, reason: `cannot evaluate "${expression.trim()}": ${(error as Error).message}` };
  }
}
