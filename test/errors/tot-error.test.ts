import { describe, expect, expectTypeOf, it } from 'vitest';
import { TOT_ERROR_CODES, TotError, type TotErrorDetailsMap } from '../../src/index.js';

describe('TotError', () => {
  it('carries its code, message, details and cause', () => {
    const cause = new Error('socket hang up');
    const error = new TotError('GENERATION_FAILED', 'provider failed', { cause, details: { attempts: 2 } });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TotError');
    expect(error.code).toBe('GENERATION_FAILED');
    expect(error.message).toBe('provider failed');
    expect(error.details).toEqual({ attempts: 2 });
    expect(error.cause).toBe(cause);
  });

  it('takes its default recoverability from the code table', () => {
    expect(new TotError('GENERATION_FAILED', 'x').recoverable).toBe(true);
    expect(new TotError('BUDGET_EXCEEDED', 'x').recoverable).toBe(false);
    expect(new TotError('SEARCH_EXHAUSTED', 'x', { recoverable: true }).recoverable).toBe(true);
  });

  it('is recognised by its Symbol.for marker, even from another copy of the package', () => {
    const foreign = Object.assign(new Error('from another bundle'), { [Symbol.for('tot.error')]: true, code: 'ABORTED' });
    expect(TotError.isInstance(foreign)).toBe(true);
    expect(TotError.isInstance(new Error('plain'))).toBe(false);
    expect(TotError.isInstance(null)).toBe(false);
    expect(TotError.isInstance('TotError')).toBe(false);
  });

  it('hasCode matches only its own code', () => {
    const error = new TotError('ABORTED', 'stopped');
    expect(TotError.hasCode(error, 'ABORTED')).toBe(true);
    expect(TotError.hasCode(error, 'TIMEOUT')).toBe(false);
  });

  it('hasCode narrows details to that code\'s shape', () => {
    const error: unknown = new TotError('RESUME_MISMATCH', 'changed', { details: { runId: 'r', differences: [{ path: 'strategy.beamWidth', recorded: 3, current: 1 }] } });
    if (!TotError.hasCode(error, 'RESUME_MISMATCH')) throw new Error('expected RESUME_MISMATCH');
    expectTypeOf(error.details?.differences).toEqualTypeOf<TotErrorDetailsMap['RESUME_MISMATCH']['differences'] | undefined>();
    expect(error.details?.differences[0]?.path).toBe('strategy.beamWidth');
  });

  it('converts to the seed protocol error object', () => {
    expect(new TotError('EVALUATION_TIMEOUT', 'evaluator took 30s').toProtocolError()).toEqual({
      code: 'EVALUATION_TIMEOUT',
      message: 'evaluator took 30s',
      recoverable: true,
    });
  });

  it('serialises to JSON with code and details', () => {
    const json = JSON.parse(JSON.stringify(new TotError('INVALID_FORMAT', 'bad', { details: { rawOutputs: ['x'] } })));
    expect(json).toEqual({ name: 'TotError', code: 'INVALID_FORMAT', message: 'bad', recoverable: true, details: { rawOutputs: ['x'] } });
  });

  it('includes every seed-000 protocol code and the library codes DESIGN names', () => {
    for (const code of [
      'INVALID_FORMAT',
      'GENERATION_FAILED',
      'EVALUATION_TIMEOUT',
      'SEARCH_EXHAUSTED',
      'BUDGET_EXCEEDED',
      'ABORTED',
      'INVALID_ARGUMENT',
      'EXPECTED_VERSION_CONFLICT',
      'IDEMPOTENCY_CONFLICT',
      'LOOP_DETECTED',
      'RESUME_MISMATCH',
      'INTERNAL',
    ]) {
      expect(TOT_ERROR_CODES).toHaveProperty(code);
    }
  });
});
