// Vitest global setup: gives the PostgreSQL tests a throwaway server for each worker when none is
// configured, started here in parallel and handed to each worker by test/setup/postgres-worker.ts.
// .ci/run starts one itself and exports TOT_POSTGRES_URL and TOT_POSTGRES_DATA: the first worker
// uses that one, the others get theirs from here. TOT_POSTGRES_DATA also tells the crash tests
// that they may start a throwaway server of their own to kill. A server of your own
// (TOT_POSTGRES_URL alone) is shared by every worker, and the crash tests are skipped. Without
// PostgreSQL the tests are skipped.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

/** One worker's server: its URL, and its files (for the crash tests) when it is a throwaway one. */
export interface PostgresCluster {
  url: string;
  data?: string | undefined;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server of each worker, by `VITEST_POOL_ID - 1`; empty when the tests are skipped. */
    postgresClusters: PostgresCluster[];
  }
}

/** Parses the `KEY=value` lines `.ci/postgres start` prints. */
function cluster(out: string): PostgresCluster {
  const values = Object.fromEntries(out.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  return { url: values.TOT_POSTGRES_URL!, data: values.TOT_POSTGRES_DATA };
}

export default async function setup(project: TestProject) {
  const started: string[] = [];
  const stop = () => {
    for (const data of started) execFileSync('bash', ['.ci/postgres', 'stop', data], { stdio: 'ignore' });
  };
  const workers = Math.max(1, project.config.maxWorkers);
  let clusters: PostgresCluster[] = [];
  if (process.env.TOT_POSTGRES === 'off') {
    clusters = [];
  } else if (process.env.TOT_POSTGRES_URL && !process.env.TOT_POSTGRES_DATA) {
    clusters = [{ url: process.env.TOT_POSTGRES_URL }];
  } else {
    try {
      const given: PostgresCluster[] = process.env.TOT_POSTGRES_URL ? [{ url: process.env.TOT_POSTGRES_URL, data: process.env.TOT_POSTGRES_DATA }] : [];
      // The first is started alone: it installs PostgreSQL if it is missing (apt-get, once).
      if (given.length === 0) {
        given.push(cluster(execFileSync('bash', ['.ci/postgres', 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })));
        started.push(given[0]!.data!);
      }
      const more = await Promise.all(
        Array.from({ length: workers - given.length }, async () => {
          const c = cluster((await promisify(execFile)('bash', ['.ci/postgres', 'start'], { encoding: 'utf8' })).stdout);
          started.push(c.data!);
          return c;
        }),
      );
      clusters = [...given, ...more];
    } catch (error) {
      stop();
      started.length = 0;
      clusters = [];
      console.warn(`\n*** PostgreSQL is unavailable (${(error as Error).message.split('\n')[0]}): the PostgreSQL tests are SKIPPED ***\n`);
    }
  }
  project.provide('postgresClusters', clusters);
  return stop;
}
