/** Runs every benchmark in its own process (each needs a clean heap and --expose-gc). */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benches = ['tree.ts', 'overhead.ts', 'game24-replay.ts', 'latency.ts', 'event-store.ts', 'reasoning-loops.ts'];
for (const bench of benches) {
  execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(new URL(bench, import.meta.url))], { stdio: 'inherit' });
}

execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('write-docs.ts', import.meta.url))], { stdio: 'inherit' });
