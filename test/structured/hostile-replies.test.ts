import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateStructured, parseStructured, TotError } from '../../src/index.js';
import { mockModel } from '../../src/testing/index.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import { catchTotError } from '../helpers/expect-tot-error.js';
import { hostileReplies } from './fixtures/hostile-replies.js';

// The fixture bundled with the sources: plain node starts it in a fraction of what tsx takes.
let child: string;
beforeAll(async () => {
  child = await bundleFixture('test/structured/fixtures/reply-in-child.ts');
}, 120_000);

/** Runs a case of fixtures/reply-in-child.ts in its own Node process. */
async function inChild(name: string): Promise<{ code: number; outcome?: string; stopReason?: string; errors?: string[] }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [child, name], { timeout: 60_000, maxBuffer: 1 << 20 });
    return { code: 0, ...JSON.parse(stdout.trim().split('\n').at(-1)!) };
  } catch (error) {
    const e = error as { code?: number; stdout?: string };
    return { code: e.code ?? -1 };
  }
}

const schema = z.object({ score: z.number() });

describe('a hostile reply never takes the process down', () => {
  it('a chain of thought given 1,000 open braces in YAML ends with INVALID_FORMAT, and the process lives', async () => {
    const r = await inChild('chain of thought, YAML, 1,000 open braces');
    expect(r).toMatchObject({ code: 0, outcome: 'value', stopReason: 'error' });
    expect(r.errors).toContain('INVALID_FORMAT');
  }, 90_000);

  it.each(['generateStructured, YAML, 2,000 open brackets', 'generateStructured, YAML, 10,000 open braces'])('%s rejects with INVALID_FORMAT in a living process', async (name) => {
    expect(await inChild(name)).toMatchObject({ code: 0, outcome: 'INVALID_FORMAT' });
  }, 90_000);

  it('a YAML reply too deep for the parser can be read twice in one process', async () => {
    expect(await inChild('parseStructured, YAML, the same reply twice')).toMatchObject({ code: 0, outcome: 'INVALID_FORMAT' });
  }, 90_000);
});

describe('replies nested deeper than 128 levels', () => {
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

  it.each(['json', 'yaml'] as const)('are refused in %s with a message naming the limit', (format) => {
    const r = parseStructured(deep(129), { schema: z.unknown(), format });
    expect(r).toMatchObject({ success: false, reason: 'syntax' });
    expect(!r.success && r.error).toMatch(/nested deeper than 128 levels/);
  });

  it.each(['json', 'yaml'] as const)('are read in %s up to the limit', (format) => {
    const r = parseStructured(deep(128), { schema: z.unknown(), format });
    expect(r.success).toBe(true);
  });

  it('count YAML block nesting too (a staircase of keys)', () => {
    const staircase = Array.from({ length: 200 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    const r = parseStructured(staircase, { schema: z.unknown(), format: 'yaml' });
    expect(!r.success && r.error).toMatch(/nested deeper than 128 levels/);
  });
});

describe('YAML limits', () => {
  it('refuses more than 100 aliases, which make resolving the document quadratic', () => {
    const text = Array.from({ length: 102 }, (_, i) => `a${i}: &a${i} [${i === 0 ? 1 : `*a${i - 1}`}]`).join('\n');
    const r = parseStructured(text, { schema: z.unknown(), format: 'yaml' });
    expect(!r.success && r.error).toMatch(/more than 100 aliases/);
  });

  it('reads a document with a few aliases', () => {
    const r = parseStructured('base: &b {x: 1}\ncopy: *b', { schema: z.object({ copy: z.object({ x: z.number() }) }), format: 'yaml' });
    expect(r).toMatchObject({ success: true, value: { copy: { x: 1 } } });
  });

  it('refuses text longer than 262,144 characters that only the full YAML grammar could read', () => {
    const text = `# a comment the fast reader leaves to the full one\n${'k: v\n'.repeat(60_000)}`;
    const r = parseStructured(text, { schema: z.unknown(), format: 'yaml' });
    expect(!r.success && r.error).toMatch(/more than the 262144 the YAML reader takes/);
  });

  it('reads long YAML the fast reader takes, and long JSON, at any length', () => {
    const keys = Array.from({ length: 40_000 }, (_, i) => `k${i}: ${i}`).join('\n');
    const yaml = parseStructured(keys, { schema: z.record(z.string(), z.number()), format: 'yaml' });
    expect(yaml.success && Object.keys(yaml.value).length).toBe(40_000);
    const json = parseStructured(JSON.stringify({ list: Array.from({ length: 50_000 }, (_, i) => i) }), { schema: z.object({ list: z.array(z.number()) }), format: 'yaml' });
    expect(json.success && json.value.list.length).toBe(50_000);
  });

  it('prints no warnings of the YAML package to the process', () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      parseStructured('? {x: 1}\n: 2', { schema: z.unknown(), format: 'yaml' });
    } finally {
      process.off('warning', onWarning);
    }
    return new Promise<void>((resolve) => setImmediate(() => {
      expect(warnings).toEqual([]);
      resolve();
    }));
  });
});

describe('extraction is linear', () => {
  // Each of these took from 10 s to minutes at 100 KB when extraction rescanned from every
  // bracket or backtracked in a regular expression; the test's time limit is the check.
  it.each(hostileReplies.map((h) => h.name))('a 100 KB reply of %s settles with a value or a failure in both formats', (name) => {
    const text = hostileReplies.find((h) => h.name === name)!.make(100_000);
    for (const format of ['json', 'yaml'] as const) {
      const r = parseStructured(text, { schema, format });
      expect(r.success || ['syntax', 'schema'].includes(r.reason)).toBe(true);
    }
  }, 10_000);
});

describe('1 MB replies', () => {
  it.each(hostileReplies.map((h) => h.name))('of %s give generateStructured a value or INVALID_FORMAT in both formats', async (name) => {
    const text = hostileReplies.find((h) => h.name === name)!.make(1_000_000);
    for (const format of ['json', 'yaml'] as const) {
      try {
        await generateStructured(mockModel(text), { prompt: 'p', schema, format, maxRepairs: 0 });
      } catch (error) {
        expect(TotError.isInstance(error) && error.code).toBe('INVALID_FORMAT');
      }
    }
  }, 20_000);
});

describe('a long parse inside generateStructured', () => {
  it.each(['json', 'yaml'] as const)('stops at its next pause when the signal aborts (%s), without reading further candidates', async (format) => {
    const controller = new AbortController();
    let validations = 0;
    // The first candidate's check aborts: the second fenced block must never be examined.
    const aborting = z.object({ score: z.number() }).refine(() => {
      validations++;
      controller.abort();
      return false;
    });
    const body = format === 'json' ? '{"score": 1}' : 'score: 1';
    const reply = `\`\`\`${format}\n${body}\n\`\`\`\nor\n\`\`\`${format}\n${body.replace('1', '2')}\n\`\`\``;
    await catchTotError(() => generateStructured(mockModel(reply), { prompt: 'p', schema: aborting, format, maxRepairs: 0, signal: controller.signal }), 'ABORTED');
    expect(validations).toBe(1);
  });

  it('leaves the event loop free: a timer due when a 250 KB YAML parse starts fires before it ends', async () => {
    // Dense YAML that only the full reader takes (a comment first): over a hundred milliseconds of parsing.
    const reply = `# notes\n${'- [a, {b: c}]\n'.repeat(18_000)}`;
    let timerFiredFirst: boolean | undefined;
    const timer = new Promise<void>((resolve) => setTimeout(() => {
      timerFiredFirst ??= true;
      resolve();
    }, 0));
    const parse = generateStructured(mockModel(reply), { prompt: 'p', schema, format: 'yaml', maxRepairs: 0 }).catch(() => {
      timerFiredFirst ??= false;
    });
    await Promise.all([timer, parse]);
    expect(timerFiredFirst).toBe(true);
  });
});
