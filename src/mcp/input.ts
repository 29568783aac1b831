import { z } from 'zod';

// Models send "3" for 3 and "true" for true (the reference thinking server's users report every
// such call refused); these accept both, and list the real type in the tool's schema.

/** An integer, or a string of one. */
export const int = (field: string, min: number, max: number) =>
  z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v), z.number({ error: `${field}: send a whole number from ${min} to ${max}` }).int(`${field}: send a whole number`).min(min, `${field}: at least ${min}`).max(max, `${field}: at most ${max}`));

/** A number, or a string of one. */
export const num = (field: string, min: number, max: number) =>
  z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v), z.number({ error: `${field}: send a number from ${min} to ${max}` }).min(min, `${field}: at least ${min}`).max(max, `${field}: at most ${max}`));

/** A boolean, or "true" / "false". */
export const bool = (field: string) =>
  z.preprocess((v) => (typeof v === 'string' && /^(true|false)$/i.test(v.trim()) ? v.trim().toLowerCase() === 'true' : v), z.boolean({ error: `${field}: send true or false` }));

/** A list of strings, or one string (sent where a list was meant), or a JSON string of a list. */
export const strings = (field: string, min = 0, max = 10_000) =>
  z.preprocess(
    (v) => {
      if (typeof v !== 'string') return v;
      const t = v.trim();
      if (t.startsWith('[')) {
        try {
          return JSON.parse(t) as unknown;
        } catch {
          return v;
        }
      }
      return t === '' ? [] : [v];
    },
    z.array(z.string({ error: `${field}: each item is a string` }), { error: `${field}: send a list of strings` }).min(min, `${field}: send at least ${min}`).max(max, `${field}: at most ${max}`),
  );

/** A JSON object, or a string of one. */
export const object = (field: string) =>
  z.preprocess(
    (v) => {
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v) as unknown;
      } catch {
        return v;
      }
    },
    z.record(z.string(), z.unknown(), { error: `${field}: send a JSON object` }),
  );

/** A session id, with what to send when it is missing. */
export const sessionId = z.string({ error: 'session_id: send the id think_session_start returned (sess_…)' }).min(1, 'session_id: send the id think_session_start returned (sess_…)');

/** A branch id. */
export const branchId = z.string({ error: 'branch_id: send a branch id think_branch_fork returned (br0, br1, …)' }).min(1, 'branch_id: send a branch id think_branch_fork returned (br0, br1, …)');
