/**
 * The built `tot` command (dist/cli/tot.js) for the benchmarks that spawn it, built first (`npx
 * tsup`) when it is missing or older than the sources. The build takes the lock directory the
 * tests take (test/helpers/ensure-dist.ts): tsup clears dist first, so two builds must never run
 * at once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
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
  mkdirSync(join(root, '.tmp'), { recursive: true });
  for (let why = stale(); why; why = stale()) {
    try {
      mkdirSync(lock);
    } catch {
      // Another process is building; a lock older than five minutes was left by a killed run.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 300_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((done) => setTimeout(done, 500));
      continue;
    }
    try {
      if (!stale()) break;
      log(`dist/cli/tot.js ${why}: building with npx tsup`);
      execFileSync('npx', ['tsup'], { cwd: root, stdio: 'pipe' });
    } catch (error) {
      const output = (error as { stderr?: Buffer }).stderr?.toString() || (error as { stdout?: Buffer }).stdout?.toString() || String(error);
      throw new Error(`the benchmark spawns the built command (dist/cli/tot.js), and npx tsup failed: run npm run build, then the benchmark again.\n${output.slice(-2000)}`);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
    if (!existsSync(cli)) throw new Error('the benchmark spawns the built command, dist/cli/tot.js, which npx tsup did not make: run npm run build, then the benchmark again.');
    break;
  }
  return cli;
}
