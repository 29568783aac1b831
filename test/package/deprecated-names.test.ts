// The engine's names before 0.2.0 reach users through the built declaration files: an editor
// strikes them through and says what they became only when the .d.ts carries `@deprecated`.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ensureDist } from '../helpers/ensure-dist.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const RENAMED: Record<string, string> = {
  GotEngine: 'SessionEngine',
  GotSession: 'AgentSession',
  GotEngineOptions: 'SessionEngineOptions',
  GotThought: 'SessionThought',
  GotBranch: 'SessionBranch',
  GotEvidence: 'SessionEvidence',
  GotEventData: 'SessionEventData',
};
const ENTRIES = ['dist/index.d.ts', 'dist/index.d.cts', 'dist/sessions/index.d.ts', 'dist/sessions/index.d.cts'];

await ensureDist();
const program = ts.createProgram(ENTRIES.map((e) => `${root}${e}`), { noEmit: true, skipLibCheck: true });
const checker = program.getTypeChecker();

/** Each declaration of an export (a class alias has two: its value and its type) with its TSDoc tags. */
function declarationsOf(entry: string, name: string): { deprecated: string | undefined }[] {
  const file = program.getSourceFile(`${root}${entry}`);
  if (!file) throw new Error(`${entry} is not built`);
  const symbol = checker.getExportsOfModule(checker.getSymbolAtLocation(file)!).find((s) => s.name === name);
  if (!symbol) return [];
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return (target.declarations ?? []).map((d) => {
    const tag = ts.getJSDocTags(d).find((t) => t.tagName.text === 'deprecated');
    return { deprecated: tag === undefined ? undefined : ts.getTextOfJSDocComment(tag.comment) ?? '' };
  });
}

describe('the deprecated session names in the built declarations', () => {
  for (const entry of ENTRIES) {
    for (const [old, renamed] of Object.entries(RENAMED)) {
      it(`${entry}: ${old} is marked @deprecated, naming ${renamed}`, () => {
        const declarations = declarationsOf(entry, old);
        expect(declarations.length).toBeGreaterThan(0);
        for (const d of declarations) expect(d.deprecated).toMatch(new RegExp(`Renamed to \\{@link ${renamed}\\}; this alias goes in 0\\.3\\.0`));
      });
    }
  }
});
