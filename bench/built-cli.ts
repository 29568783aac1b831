/**
 * The built `tot` command (dist/cli/tot.js) for the benchmarks that spawn it, built first (`npx
 * tsup`) when it is missing or older than the sources. The build takes the lock directory the
 * tests take (test/helpers/ensure-dist.ts): tsup clears dist first, so two builds must never run
 * at once. The benchmark then runs a copy of dist taken under the same lock, in
 * .tmp/bench-cli/<build time>/: a build that starts while a benchmark runs (a test, an edit and
 * rebuild) would otherwise empty dist under the servers it spawns, and fail the benchmark.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of the files under a folder. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** The path of dist/cli/tot.js under `root`, built when it is missing or stale; `log` hears when it builds. */
export async function builtCli(root: string, log: (line: string) => void): Promise<string> {
  const cli = join(root, 'dist', 'cli', 'tot.js');
  const lock = join(root, '.tmp', 'dist-build.lock');
  const stale = () => (!existsSync(cli) ? 'is missing' : statSync(cli).mtimeMs < newest(join(root, 'src')) ? 'is older than src/' : undefined);
  mkdirSync(join(root, '.tmp', 'bench-cli'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
    } catch {
      // Another process is building; a lock older than five minutes was left by a killed run.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 300_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((done) => setTimeout(done, 500));
      continue;
    }
    try {
      const why = stale();
      if (why) {
        log(`dist/cli/tot.js ${why}: building with npx tsup`);
        execFileSync('npx', ['tsup'], { cwd: root, stdio: 'pipe' });
      }
      if (!existsSync(cli)) throw new Error('the benchmark spawns the built command, dist/cli/tot.js, which npx tsup did not make: run npm run build, then the benchmark again.');
      const snapshot = join(root, '.tmp', 'bench-cli', String(Math.floor(statSync(cli).mtimeMs)));
      if (!existsSync(snapshot)) {
        rmSync(`${snapshot}.partial`, { recursive: true, force: true });
        cpSync(join(root, 'dist'), `${snapshot}.partial`, { recursive: true });
        renameSync(`${snapshot}.partial`, snapshot);
      }
      // Copies of builds an hour old or more are not in use.
      for (const old of readdirSync(join(root, '.tmp', 'bench-cli'))) {
        const path = join(root, '.tmp', 'bench-cli', old);
        if (path !== snapshot && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
      }
      return join(snapshot, 'cli', 'tot.js');
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('the benchmark')) throw error;
      const output = (error as { stderr?: Buffer }).stderr?.toString() || (error as { stdout?: Buffer }).stdout?.toString() || String(error);
      throw new Error(`the benchmark spawns the built command (dist/cli/tot.js), and building or copying it failed: run npm run build, then the benchmark again.\n${output.slice(-2000)}`);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
