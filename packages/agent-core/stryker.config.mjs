/**
 * Mutation testing of agent-core: `pnpm --filter @coding-agent/agent-core mutation`
 * (not part of `pnpm test`: a full run takes about a quarter of an hour). While
 * iterating, mutate one file: `pnpm --filter @coding-agent/agent-core mutation --mutate src/redact.ts`;
 * incremental mode reuses the results of mutants whose code and tests did not change.
 * @type {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export default {
  testRunner: "vitest",
  // pnpm does not hoist the runner where Stryker's plugin discovery looks for it.
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.mutation.config.ts" },
  // TypeScript 7 has no JS API: no TypeScript checker, and the tsconfig rewrite must not
  // run, so it is pointed at a file that does not exist.
  checkers: [],
  tsconfigFile: "tsconfig.stryker-does-not-rewrite.json",
  // Two levels below the repository root, like the package itself, so the sandbox's
  // `extends: ../../tsconfig.base.json` still resolves. Git-ignored.
  tempDirName: "../../.stryker-tmp",
  mutate: ["src/**/*.ts"],
  coverageAnalysis: "perTest",
  incremental: true,
  incrementalFile: "reports/mutation/incremental.json",
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  concurrency: 2,
  // A mutant that makes a test spin (a loop bound removed) is killed by the timeout.
  timeoutMS: 10_000,
  thresholds: { high: 90, low: 80, break: null },
};
