import { describe, expect, it } from 'vitest';
import { newAnnounceKey, seal, unseal } from '../../src/queue/sealed-announcement.js';

const runId = '2b5c1a52-5c3e-4c43-9a55-3f0e2f6f7b1a';

describe('sealed announcements', () => {
  it('opens with the key that sealed it, to the same outcome', () => {
    const key = newAnnounceKey();
    const outcome = { runId, status: 'finished' as const, result: { answer: 24, steps: ['4 + 9 = 13'] } };
    expect(unseal(key, seal(key, outcome))).toEqual(outcome);
  });

  it('does not show the outcome in the payload', () => {
    const payload = seal(newAnnounceKey(), { runId, status: 'failed', error: { code: 'INTERNAL', message: 'the reason in clear', recoverable: false } });
    expect(payload).not.toContain('reason');
    expect(payload).not.toContain(runId);
  });

  it("opens nothing sealed with another key, changed on the way, or not sealed at all (a bare run id)", () => {
    const key = newAnnounceKey();
    const payload = seal(key, { runId, status: 'finished', result: 1 });
    const body = Buffer.from(payload.slice(3), 'base64');
    body[body.length - 1]! ^= 1;
    expect(unseal(newAnnounceKey(), payload)).toBeUndefined();
    expect(unseal(key, `s1:${body.toString('base64')}`)).toBeUndefined();
    expect(unseal(key, runId)).toBeUndefined();
    expect(unseal(key, 's1:')).toBeUndefined();
  });
});
