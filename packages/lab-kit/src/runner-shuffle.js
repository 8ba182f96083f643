// Test runner of a shuffled target's vitest project (runner-child.js). vitest 4 reads
// `sequence.shuffle` and `sequence.seed` from the root config only, so an inline project
// cannot ask for them; this runner gives its own project vitest's own shuffling (suites
// and tests of each file, in an order fixed by the seed) with the seed the parent
// provided, and every other project of the same process keeps the file order.
import { TestRunner } from "vitest";

export default class ShuffledTestRunner extends TestRunner {
  /** @param {import("vitest").SerializedConfig} config */
  constructor(config) {
    super(config);
    const seed = this.injectValue("labKitShuffleSeed");
    if (!Number.isSafeInteger(seed)) {
      throw new TypeError(`lab-kit: a shuffled target needs an integer seed, got ${String(seed)}`);
    }
    this.config = { ...config, sequence: { ...config.sequence, shuffle: true, seed } };
  }
}
