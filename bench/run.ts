/**
 * Builds benchmarks and runs each in its own Node process (a clean heap, --expose-gc).
 *
 *   npm run bench                          every benchmark, then docs/benchmarks.md
 *   tsx bench/run.ts game24-replay -- …    one benchmark, with its own arguments
 *
 * Benchmarks run compiled, the way users run the package: tsx compiles with esbuild's keepNames,
 * which wraps every function made at run time (each closure) in a name-setting call, and on the
 * hot paths that wrapper cost as much as the library's own work. esbuild bundles each benchmark
 * with the library's sources (no keepNames, like the tsup build) into .tmp/bench/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ALL = ['tree', 'overhead', 'game24-replay', 'latency', 'event-store', 'reasoning-loops', 'recording', 'hostile-replies', 'adapters', 'got', 'got-engine', 'mad-replay', 'deliberation', 'mcp', 'sequential-thinking', 'viewer'];
const root = fileURLToPath(new URL('..', import.meta.url));
const benchDir = fileURLToPath(new URL('.', import.meta.url));
const out = `${root}.tmp/bench/`;

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const names = (split === -1 ? argv : argv.slice(0, split)).filter(Boolean);
const extra = split === -1 ? [] : argv.slice(split + 1);
const selected = names.length === 0 ? ALL : names;
for (const name of selected) if (!ALL.includes(name)) throw new Error(`no benchmark "${name}" (known: ${ALL.join(', ')})`);

mkdirSync(out, { recursive: true });
await build({
  entryPoints: selected.map((name) => `${benchDir}${name}.ts`),
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  tsconfig: `${root}tsconfig.json`,
  // Database drivers stay in node_modules (better-sqlite3 and sqlite3 are native); so do CommonJS
  // packages that need require, and Emmett, which the event store benchmark compares against.
  external: ['better-sqlite3', 'sqlite3', 'pg', '@event-driven-io/*'],
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});

for (const name of selected) {
  execFileSync(process.execPath, ['--expose-gc', `${out}${name}.mjs`, ...extra], { stdio: 'inherit', cwd: root, env: { ...process.env, TOT_BENCH_DIR: benchDir } });
}
if (names.length === 0) execFileSync(process.execPath, ['--import', 'tsx', `${benchDir}write-docs.ts`], { stdio: 'inherit', cwd: root });
