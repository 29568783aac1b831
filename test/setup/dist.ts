// Vitest global setup: builds dist once, before any test file, when it is missing, or, for a run
// of the whole suite (`npm test`, CI), also when it is older than the sources. The package, command
// and MCP tests then run what users run, and no test file spends its time building.
// A run of chosen files (`npx vitest run test/x.test.ts`) keeps a stale dist: rebuilding takes
// minutes and would pull dist from under other runs in the same checkout; the command's tests build
// a private `tot` from the sources then (test/helpers/tot-cli.ts).
import { ensureDist } from '../helpers/ensure-dist.js';

/** The file filters given on vitest's command line (its positional arguments after `run`). */
function fileFilters(argv: readonly string[]): string[] {
  const args = argv.slice(2);
  const filters: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('-')) {
      // An option's value in the next argument (--reporter json) is not a filter.
      if (!arg.includes('=') && i + 1 < args.length && !args[i + 1]!.startsWith('-') && !/\.(test\.)?[cm]?[jt]s$|\//.test(args[i + 1]!)) i++;
      continue;
    }
    if (!['run', 'watch', 'dev', 'related'].includes(arg)) filters.push(arg);
  }
  return filters;
}

export default async function setup(): Promise<void> {
  await ensureDist({ current: fileFilters(process.argv).length === 0 });
}
