export * from './store/index.js';
export { VectorClock, compareClocks, EventDag, type ClockOrder } from './vector-clock.js';
