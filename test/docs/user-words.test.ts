import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureDist } from '../helpers/ensure-dist.js';
import { ensureCli, totHelp } from '../helpers/tot-cli.js';
import { filesUnder, report, scanFiles, scanSource, scanText } from './user-words.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the scan for specification jargon', () => {
  it('finds a specification number or section sign in text, with its line', () => {
    expect(scanText('guide.md', 'Fine.\nAs seed 004 says (§3.2).\nThe seed protocol.\nseed-001')).toEqual([
      { where: 'guide.md:2', text: 'As seed 004 says (§3.2).' },
      { where: 'guide.md:3', text: 'The seed protocol.' },
      { where: 'guide.md:4', text: 'seed-001' },
    ]);
  });

  it('leaves a random seed alone', () => {
    expect(scanText('guide.md', 'The same seed gives the same sequence; `seed` defaults to 0.')).toEqual([]);
  });

  it('finds it in TSDoc and string literals of a source, not in // comments', () => {
    const source = [
      '// Seed 004 asks for this.',
      '/** Follows seed 001 §2. */',
      'export const a = 1;',
      "throw new Error('bad input (seed 000)');",
      'const b = `see §4`;',
    ].join('\n');
    expect(scanSource('x.ts', source).map((h) => h.where)).toEqual(['x.ts:2', 'x.ts:4', 'x.ts:5']);
  });
});

describe('what users read names no specification', () => {
  it('README.md, CHANGELOG.md, CONTRIBUTING.md and the guides', () => {
    const files = [`${root}README.md`, `${root}CHANGELOG.md`, ...(existsSync(`${root}CONTRIBUTING.md`) ? [`${root}CONTRIBUTING.md`] : []), ...filesUnder(`${root}docs`, '.md').filter((f) => !f.includes('/api/'))];
    expect(report(scanFiles(root, files, scanText))).toBe('');
  });

  it('TSDoc, error messages and help texts in the sources', () => {
    expect(report(scanFiles(root, filesUnder(`${root}src`, '.ts'), scanSource))).toBe('');
  });

  it('the built declarations (the TSDoc editors show)', async () => {
    await ensureDist();
    expect(report(scanFiles(root, filesUnder(`${root}dist`, '.d.ts'), scanText))).toBe('');
  }, 180_000);

  describe('the help of the tot command', () => {
    beforeAll(async () => {
      await ensureCli();
    }, 180_000);

    it.each(['--help', 'mcp --help', 'runs --help', 'view --help', 'demo --help'])('tot %s', (args) => {
      // The same run as the command tests' (the help is asked once).
      const { code, stdout: out } = totHelp(args.split(' '));
      expect(code).toBe(0);
      expect(out).toContain('--help');
      expect(report(scanText(`tot ${args}`, out))).toBe('');
    });
  });
});
