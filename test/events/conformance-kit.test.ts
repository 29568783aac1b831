import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, type EventStore } from '../../src/index.js';
import { eventStoreConformanceCases, type EventStoreFactory } from '../../src/testing/index.js';
import { bundleFixture } from '../helpers/bundle-fixture.js';
import * as broken from './broken-stores.js';

/** The names of the cases (those whose name `only` matches, when given) that the store fails. */
async function failures(factory: EventStoreFactory, only?: RegExp): Promise<string[]> {
  const failed: string[] = [];
  const cases = eventStoreConformanceCases(factory).filter((c) => only === undefined || only.test(c.name));
  // A case renamed away from the name a test expects would leave nothing to fail.
  if (cases.length === 0) throw new Error(`no conformance case is named like ${String(only)}`);
  for (const c of cases) {
    try {
      await c.run();
    } catch {
      failed.push(c.name);
    }
  }
  return failed;
}

const make = (Store: new () => EventStore): EventStoreFactory => ({ create: () => new Store() });

describe('the EventStore conformance kit', () => {
  it('passes a correct store', async () => {
    expect(await failures({ create: () => new InMemoryEventStore(), reopen: async (s) => s })).toEqual([]);
  });

  const expectations: [string, EventStoreFactory, RegExp][] = [
    ['drops half of each batch', make(broken.DropsBatchHalf), /whole or not at all/],
    ['ignores expectedVersion', make(broken.IgnoresExpectedVersion), /expected-version matrix/],
    ['duplicates on retry', make(broken.DuplicatesOnRetry), /idempotent retry/],
    ['reorders readAll', make(broken.ReordersReadAll), /commit order/],
    ['shares the caller\'s objects', make(broken.SharesCallerObjects), /caller changes its objects/],
    ['checks then writes (racy)', make(broken.CheckThenWrite), /concurrent appenders/],
    ['trusts idempotency keys blindly', make(broken.TrustsKeysBlindly), /different payload/],
    ['loses snapshots', make(broken.LosesSnapshots), /snapshot/],
    ['accepts data JSON cannot carry', make(broken.AcceptsAnyData), /bad input/],
    ['forgets everything on reopen', broken.forgetsOnReopen, /across reopen/],
    ['sorts object keys', make(broken.SortsKeys), /round-trips data, metadata, clocks and snapshot state exactly/],
    ['loads the snapshot saved last, frozen', make(broken.KeepsLastSnapshot), /snapshot of the highest version/],
    ['reuses event ids', make(broken.ReusesEventIds), /eventId another stored event has/],
    ['overflows the stack on deep values', make(broken.StringifiesFirst), /nested deeper than 512/],
    ['replaces unpaired surrogates in ids', make(broken.ReplacesLoneSurrogates), /refuses identifiers/],
    ['fails a read past the end', make(broken.FailsPastTheEnd), /reads nothing past the end/],
  ];
  for (const [name, factory, expected] of expectations) {
    // Only the cases the defect must fail are run: which others fail is no part of the claim.
    it(`fails a store that ${name}`, async () => {
      const failed = await failures(factory, expected);
      expect(failed.some((f) => expected.test(f)), `failed: ${failed.join(' | ')}`).toBe(true);
    });
  }

  it('runs under node:test as well', async () => {
    const { execFileSync } = await import('node:child_process');
    // Bundled with the sources and run by plain node: what a user's node:test runs, without tsx
    // compiling the sources first.
    const file = await bundleFixture('test/events/node-test/in-memory.conformance.ts');
    const out = execFileSync(process.execPath, ['--test', '--test-reporter=tap', file], { encoding: 'utf8' });
    expect(out).toMatch(new RegExp(`# pass ${eventStoreConformanceCases({ create: () => new InMemoryEventStore() }).length}\\b`));
    expect(out).toMatch(/# fail 0/);
  }, 60_000);
});
