import ts from 'typescript';

/**
 * One TypeScript program over every entry: the entries share most of their sources (and zod's
 * types), and a program per entry parsed and bound them all again each time (about 2 s apiece).
 */
export function programOf(entries: readonly string[]): ts.Program {
  return ts.createProgram([...entries], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, strict: true, noEmit: true });
}

/**
 * Lists the public API items of `entry` (its exports, and the public methods and accessors of its
 * exported classes) whose TSDoc lacks an `@example` tag. `program` must include `entry`.
 */
export function missingExamples(entry: string, program: ts.Program = programOf([entry])): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error(`cannot read ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entry} is not a module`);
  const hasExample = (node: ts.Node) => ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'example');
  const missing: string[] = [];
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declarations = symbol.declarations ?? [];
    if (!declarations.some(hasExample)) missing.push(exported.name);
    for (const declaration of declarations) {
      if (!ts.isClassDeclaration(declaration)) continue;
      for (const member of declaration.members) {
        const isApi = ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member);
        const hidden = ts.getCombinedModifierFlags(member) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected);
        if (!isApi || hidden || !member.name || !ts.isIdentifier(member.name)) continue;
        if (!hasExample(member)) missing.push(`${exported.name}.${member.name.text}`);
      }
    }
  }
  return [...new Set(missing)].sort();
}
