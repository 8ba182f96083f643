// Test runner of every vitest project runner-child.js builds. One project may hold several
// targets (a worker group: runner-child.js), each with its own copy of the lab's tests, so
// the settings that differ between targets are set here, per test file, from the target
// whose tests folder holds the file: the per-test and hook timeout, and the shuffle. vitest
// 4 reads `sequence.shuffle` and its seed from the root config only, so an inline project
// cannot ask for them; this runner gives a shuffled target's files vitest's own shuffling
// (suites and tests of each file, in an order fixed by the seed) and keeps every other
// file in file order.
import { TestRunner } from "vitest";
import { targetOfFile } from "./runner-paths.js";

/** @typedef {{ label: string, testsDir: string, timeout: number, shuffleSeed?: number }} LabFileTarget */

export default class LabTestRunner extends TestRunner {
  /** @param {import("vitest").SerializedConfig} config */
  constructor(config) {
    super(config);
    /** @type {readonly LabFileTarget[]} */
    this.labTargets = this.injectValue("labKitTargets") ?? [];
    for (const target of this.labTargets) {
      if (target.shuffleSeed !== undefined && !Number.isSafeInteger(target.shuffleSeed)) {
        throw new TypeError(
          `lab-kit: target ${target.label} needs an integer seed, got ${String(target.shuffleSeed)}`,
        );
      }
    }
  }

  /** @param {import("@vitest/runner").File} file */
  onCollectStart(file) {
    super.onCollectStart(file);
    const target = targetOfFile(this.labTargets, file.filepath);
    if (target === undefined) {
      throw new Error(`lab-kit: no target runs ${file.filepath}`);
    }
    // Read when the file's tests and hooks are declared, i.e. after this call: in place,
    // as `vi.setConfig` in a setup file would (vitest resets it after each file).
    const shuffle = target.shuffleSeed !== undefined;
    this.config.testTimeout = target.timeout;
    this.config.hookTimeout = target.timeout;
    this.config.sequence = {
      ...this.config.sequence,
      shuffle,
      ...(shuffle ? { seed: target.shuffleSeed } : {}),
    };
    file.shuffle = shuffle;
  }
}
