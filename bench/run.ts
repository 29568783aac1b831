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
 *
 * The libraries a benchmark compares against (Emmett, the reference sequential-thinking server)
 * live in bench/peers/, a package of their own, so that the library's `npm install` never compiles
 * a driver only a comparison uses: it is installed here, on the first run of a benchmark that needs it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ALL = ['tree', 'overhead', 'game24-replay', 'crosswords', 'latency', 'event-store', 'reasoning-loops', 'recording', 'hostile-replies', 'adapters', 'got', 'got-engine', 'mad-replay', 'deliberation', 'mcp', 'sequential-thinking', 'viewer', 'queue', 'otel'];
const root = fileURLToPath(new URL('..', import.meta.url));
const benchDir = fileURLToPath(new URL('.', import.meta.url));
const out = `${root}.tmp/bench/`;

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const names = (split === -1 ? argv : argv.slice(0, split)).filter(Boolean);
const extra = split === -1 ? [] : argv.slice(split + 1);
const selected = names.length === 0 ? ALL : names;
for (const name of selected) if (!ALL.includes(name)) throw new Error(`no benchmark "${name}" (known: ${ALL.join(', ')})`);

// Benchmarks that import a package from bench/peers, and the packages they import from there.
const NEEDS_PEERS = ['event-store', 'sequential-thinking'];
const PEERS = /^(@event-driven-io\/|uuid$|sqlite3$|@modelcontextprotocol\/server-sequential-thinking)/;
const peersDir = `${benchDir}peers/`;
if (selected.some((name) => NEEDS_PEERS.includes(name)) && !existsSync(`${peersDir}node_modules/.package-lock.json`)) {
  console.error('bench: installing the libraries the comparison benchmarks measure against (npm --prefix bench/peers ci)');
  execFileSync('npm', ['--prefix', peersDir, 'ci', '--no-audit', '--no-fund'], { stdio: 'inherit', cwd: root });
}
// A peer stays outside the bundle, imported by its path in bench/peers/node_modules, since the
// bundle in .tmp/bench/ would otherwise look for it in the library's node_modules.
const fromPeers: Plugin = {
  name: 'bench-peers',
  setup(b) {
    b.onResolve({ filter: PEERS }, async (args) => {
      if (args.pluginData === 'bench-peers') return undefined;
      const found = await b.resolve(args.path, { kind: args.kind, resolveDir: peersDir, pluginData: 'bench-peers' });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: found.path, external: true };
    });
  },
};

mkdirSync(out, { recursive: true });
await build({
  plugins: [fromPeers],
  entryPoints: selected.map((name) => `${benchDir}${name}.ts`),
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  tsconfig: `${root}tsconfig.json`,
  // Database drivers stay in node_modules (better-sqlite3 is native; pg needs require).
  external: ['better-sqlite3', 'pg', 'pg-boss'],
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});

// One id for this invocation's results, so that the benchmarks page can name figures from another run.
const benchRun = new Date().toISOString();
for (const name of selected) {
  execFileSync(process.execPath, ['--expose-gc', `${out}${name}.mjs`, ...extra], { stdio: 'inherit', cwd: root, env: { ...process.env, TOT_BENCH_DIR: benchDir, TOT_BENCH_RUN: benchRun } });
}
if (names.length === 0) execFileSync(process.execPath, ['--import', 'tsx', `${benchDir}write-docs.ts`], { stdio: 'inherit', cwd: root });
