// Vitest global setup: gives the PostgreSQL tests a throwaway server when none is configured.
// .ci/run starts one itself and exports TOT_POSTGRES_URL; `npm test` on a machine with
// PostgreSQL installed gets one from here. Without either, the PostgreSQL tests are skipped.
import { execFileSync } from 'node:child_process';

export default function setup() {
  if (process.env.TOT_POSTGRES_URL || process.env.TOT_POSTGRES === 'off') return undefined;
  let data: string | undefined;
  try {
    const out = execFileSync('bash', ['.ci/postgres', 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    for (const line of out.trim().split('\n')) {
      const [key, ...value] = line.split('=');
      if (key?.startsWith('TOT_POSTGRES_')) process.env[key] = value.join('=');
    }
    data = process.env.TOT_POSTGRES_DATA;
  } catch (error) {
    console.warn(`\n*** PostgreSQL is unavailable (${(error as Error).message.split('\n')[0]}): the PostgreSQL tests are SKIPPED ***\n`);
  }
  return () => {
    if (data) execFileSync('bash', ['.ci/postgres', 'stop', data], { stdio: 'ignore' });
  };
}
