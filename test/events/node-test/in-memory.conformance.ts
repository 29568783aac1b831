// Runs the conformance suite under node:test, to prove the kit is not tied to vitest.
import { describe, it } from 'node:test';
import { InMemoryEventStore } from '../../../src/index.js';
import { registerEventStoreConformance } from '../../../src/testing/index.js';

registerEventStoreConformance({ describe, it: (name, body) => it(name, body) }, { create: () => new InMemoryEventStore() }, { name: 'InMemoryEventStore under node:test' });
