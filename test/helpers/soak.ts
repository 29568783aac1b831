// The length of the randomized crash and race tests (the `*.soak.test.ts` files). Their rounds and
// kills are draws at hitting a rare interleaving: every behaviour is covered by a few, and more only
// raise the odds. `npm test` runs them short; `npm run test:soak` (TOT_SOAK=1), which CI runs
// after the suite, runs them at full length.

/** Whether the soak tests run at full length: `TOT_SOAK=1`. */
const fullSoak = process.env.TOT_SOAK === '1';

/**
 * `quick` in `npm test`, `full` under `TOT_SOAK=1`.
 *
 * @example
 * const CRASHES = soak({ quick: 10, full: 30 });
 */
export function soak<T>(lengths: { quick: T; full: T }): T {
  return fullSoak ? lengths.full : lengths.quick;
}
