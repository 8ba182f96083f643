/**
 * The test runner of a shuffled target's project (`runner-child.ts`). vitest 4 reads
 * `sequence.shuffle` and its seed from the root config only, so an inline project cannot
 * ask for them; this runner gives the project's files vitest's own shuffle (suites and tests
 * of each file, in an order fixed by the seed the project provides).
 */
import { type RunnerTestFile, type SerializedConfig, TestRunner } from "vitest";

export default class ShuffledLabRunner extends TestRunner {
  private readonly seed: number;

  constructor(config: SerializedConfig) {
    super(config);
    // An integer: `runLabTargets` refuses any other seed before vitest starts.
    this.seed = this.injectValue("labKitShuffleSeed") as number;
  }

  override onCollectStart(file: RunnerTestFile): void {
    super.onCollectStart(file);
    // Read when the file's tests are declared, i.e. after this call.
    this.config.sequence = { ...this.config.sequence, shuffle: true, seed: this.seed };
    file.shuffle = true;
  }
}
