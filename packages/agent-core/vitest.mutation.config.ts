import { configDefaults, defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.ts";

// Stryker runs the tests against instrumented copies of src/: the structure test reads
// those files (their length, their imports) and would fail the initial run for nothing.
// A mutant that leaves a promise pending fails its test at vitest's own timeout, well
// before Stryker's (10 s past the tests' time), which would restart the worker instead.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [...configDefaults.exclude, "tests/package-structure.test.ts"],
      testTimeout: 8_000,
    },
  }),
);
