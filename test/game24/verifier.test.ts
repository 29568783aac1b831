import { describe, expect, it } from 'vitest';
import { checkAnswer, evaluateExpression } from '../../examples/game24/verifier.js';

describe('Game of 24 verifier', () => {
  it('accepts a correct answer line', () => {
    expect(checkAnswer('4 9 10 13', 'Answer: (10 - (13 - 9)) * 4 = 24')).toEqual({ valid: true });
    expect(checkAnswer('4 9 10 13', '13 - 9 = 4 (left: 4 4 10)\nAnswer: (10 - (13 - 9)) × 4 = 24\n')).toEqual({ valid: true });
  });

  it('is exact where floating point is not: 8 / (3 - 8 / 3) = 24', () => {
    expect(8 / (3 - 8 / 3)).not.toBe(24);
    expect(checkAnswer('3 3 8 8', 'Answer: 8 / (3 - 8 / 3) = 24')).toEqual({ valid: true });
  });

  it('rejects wrong numbers, a wrong value and garbage', () => {
    expect(checkAnswer('4 9 10 13', 'Answer: 4 * 6 = 24').valid).toBe(false);
    expect(checkAnswer('4 9 10 13', 'Answer: 4 + 9 + 10 + 13 = 24')).toMatchObject({ valid: false, reason: 'equals 36/1, not 24' });
    expect(checkAnswer('4 9 10 13', 'Answer: (4 + 9 = 24').valid).toBe(false);
    expect(checkAnswer('4 9 10 13', '').valid).toBe(false);
    expect(checkAnswer('1 1 1 1', 'Answer: 1 / (1 - 1) + 1 = 24')).toMatchObject({ valid: false, reason: expect.stringContaining('division by zero') });
  });

  it('evaluates with precedence, unary minus and decimals', () => {
    expect(evaluateExpression('2 + 3 * 4')).toEqual({ n: 14n, d: 1n });
    expect(evaluateExpression('-(1.5) * 4')).toEqual({ n: -6n, d: 1n });
    expect(evaluateExpression('10 / 4')).toEqual({ n: 5n, d: 2n });
  });
});
