// The vitest side of a learner's own lab test run (lab-test.js), in a child process so the
// supervisor can end it when a test blocks its worker. Output is vitest's own: stdio is the
// terminal's. The job comes in the LAB_KIT_TEST_JOB environment variable (JSON); with IPC,
// the child tells the supervisor when a file starts and ends loading and `{ type: "run-end" }`
// after each run (watch mode reruns).
// Plain JavaScript on purpose: it starts on Node 20 without a TypeScript loader.
import path from "node:path";
import { parseCLI, startVitest } from "vitest/node";
import { defineLabConfig } from "./vitest-config.js";

/**
 * @typedef {object} LabTestJob
 * @property {string} packageDir the starter or solution folder
 * @property {string[]} args vitest CLI arguments
 * @property {string} progressFile where the setup file records test starts and ends
 * @property {string} hungFile JSON list of tests to fail at once (found blocking earlier)
 * @property {[string, unknown][]} [reporters] extra reporters: module path and options
 */

// The supervisor is gone (killed, or its terminal closed): end this run with it, including
// a worker thread that may be spinning in a learner's loop.
process.on("disconnect", () => process.exit(1));

/** @type {LabTestJob} */
const job = JSON.parse(process.env.LAB_KIT_TEST_JOB ?? "{}");
const { filter, options } = parseCLI(["vitest", ...job.args]);
const { reporter, ...cliOptions } = options;

const config = defineLabConfig(job.packageDir);
const vitest = await startVitest(
  "test",
  filter,
  {
    ...cliOptions,
    watch: cliOptions.watch ?? false,
    root: job.packageDir,
    config: false,
    reporters: [
      ...(reporter ?? ["default"]),
      ...(job.reporters ?? []),
      {
        // Loading a file: the supervisor ends a load that never finishes (a top-level loop).
        onTestModuleQueued: (testModule) =>
          process.send?.({ type: "module-queued", file: testModule.moduleId }),
        onTestModuleCollected: (testModule) =>
          process.send?.({ type: "module-collected", file: testModule.moduleId }),
        onTestModuleEnd: (testModule) =>
          process.send?.({ type: "module-collected", file: testModule.moduleId }),
        onTestRunEnd: () => process.send?.({ type: "run-end" }),
      },
    ],
  },
  {
    ...config,
    test: {
      ...config.test,
      // Threads: the worker that a blocking test holds lives in this process, so ending
      // this process ends it too (a forked worker would spin on as an orphan).
      pool: "threads",
      setupFiles: [path.join(import.meta.dirname, "lab-test-setup.js")],
      provide: { labTestProgressFile: job.progressFile, labTestHungFile: job.hungFile },
    },
  },
);
if (!vitest.shouldKeepServer()) await vitest.close();
else await new Promise((resolve) => vitest.onClose(() => resolve(undefined)));
process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
