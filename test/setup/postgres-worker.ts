// Vitest setup file: points this worker's test files at its own PostgreSQL server (see
// test/setup/postgres.ts), through the variables the tests read: TOT_POSTGRES_URL and, for a
// throwaway server, TOT_POSTGRES_DATA (the crash tests then start one of their own to kill). Runs before each file's imports.
import { inject } from 'vitest';

const clusters = inject('postgresClusters');
if (clusters.length > 0) {
  const mine = clusters[(Number(process.env.VITEST_POOL_ID ?? 1) - 1) % clusters.length]!;
  process.env.TOT_POSTGRES_URL = mine.url;
  if (mine.data) process.env.TOT_POSTGRES_DATA = mine.data;
  else delete process.env.TOT_POSTGRES_DATA;
}
