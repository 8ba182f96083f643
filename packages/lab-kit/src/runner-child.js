// The vitest side of runLabTargets (runner.ts), run in a child process so the parent can
// kill it when a learner's synchronous endless loop blocks a worker past any timeout.
// Plain JavaScript on purpose: Node 20 cannot run TypeScript without a loader, and a loader
// would add start-up time to every verify.
//
// Protocol (IPC): the parent sends one `{ type: "run", job }` message; the child streams
// `ready`, `result`, `module` events as tests progress and ends with `done` (or `fatal`).
import path from "node:path";
import { createVitest } from "vitest/node";
import { LAB_ALIAS, LAB_TEST_TIMEOUT_MS } from "./vitest-config.js";

/** @param {unknown} message */
function send(message) {
  if (process.send) process.send(message);
}

/**
 * Full name of a test: its describe titles and its own title joined by " > ".
 * @param {import("vitest/node").TestCase} testCase
 */
function fullName(testCase) {
  return testCase.fullName;
}

/** @param {readonly { name?: string, message?: string, stack?: string }[] | undefined} errors */
function serializeErrors(errors) {
  return (errors ?? []).map((error) => ({
    name: error.name ?? "Error",
    message: error.message ?? String(error),
    stack: error.stack ?? "",
  }));
}

/** A reporter that streams each event to the parent as soon as vitest knows it. */
const streamingReporter = {
  /** @param {ReadonlyArray<import("vitest/node").TestSpecification>} specifications */
  onTestRunStart(specifications) {
    send({
      type: "planned",
      modules: specifications.map((spec) => ({ project: spec.project.name, file: spec.moduleId })),
    });
  },
  /** @param {import("vitest/node").TestCase} testCase */
  onTestCaseReady(testCase) {
    send({
      type: "ready",
      project: testCase.project.name,
      file: testCase.module.moduleId,
      name: fullName(testCase),
    });
  },
  /** @param {import("vitest/node").TestCase} testCase */
  onTestCaseResult(testCase) {
    const result = testCase.result();
    send({
      type: "result",
      project: testCase.project.name,
      file: testCase.module.moduleId,
      name: fullName(testCase),
      state: result.state === "pending" ? "skipped" : result.state,
      errors: serializeErrors(result.errors),
    });
  },
  /** @param {import("vitest/node").TestModule} testModule */
  onTestModuleEnd(testModule) {
    const tests = [...testModule.children.allTests()].map((testCase) => {
      const result = testCase.result();
      return {
        name: fullName(testCase),
        state: result.state === "pending" ? "skipped" : result.state,
        errors: serializeErrors(result.errors),
      };
    });
    send({
      type: "module",
      project: testModule.project.name,
      file: testModule.moduleId,
      errors: serializeErrors(testModule.errors()),
      tests,
    });
  },
};

const SETUP_FILE = path.join(import.meta.dirname, "runner-setup.js");

/**
 * One inline vitest project per target: the lab's tests, `@lab` bound to the target's sources.
 * @param {{ label: string, labDir: string, packageDir: string, srcDir: string, shuffle: boolean,
 *   testTimeoutMs: number, skip: string[] }} target
 * @param {string} progressFile
 */
function projectFor(target, progressFile) {
  return {
    root: target.packageDir,
    resolve: {
      alias: [{ find: LAB_ALIAS, replacement: path.join(target.srcDir, "index.ts") }],
    },
    test: {
      name: target.label,
      root: target.packageDir,
      dir: target.labDir,
      include: ["tests/**/*.test.ts"],
      testTimeout: target.testTimeoutMs,
      hookTimeout: target.testTimeoutMs,
      sequence: { shuffle: target.shuffle },
      // Threads start faster than forks; a worker stuck in a synchronous loop is still
      // ended, since the parent kills this whole process.
      pool: "threads",
      setupFiles: [SETUP_FILE],
      provide: {
        labKitLabel: target.label,
        labKitProgressFile: progressFile,
        labKitSkip: target.skip,
      },
    },
  };
}

/**
 * @param {{ root: string, cacheDir: string, progressFile: string,
 *   targets: Parameters<typeof projectFor>[0][], seed?: number, maxWorkers?: number }} job
 */
async function run(job) {
  const vitest = await createVitest(
    "test",
    {
      root: job.root,
      config: false,
      watch: false,
      reporters: [streamingReporter],
      projects: job.targets.map((target) => projectFor(target, job.progressFile)),
      passWithNoTests: true,
      teardownTimeout: LAB_TEST_TIMEOUT_MS,
      ...(job.seed === undefined ? {} : { sequence: { seed: job.seed } }),
      ...(job.maxWorkers === undefined ? {} : { maxWorkers: job.maxWorkers }),
    },
    // The cache (file durations, so the slowest file, often a timeout gate, starts first)
    // lives in a package's node_modules, not in a new node_modules inside the lab folder.
    { logLevel: "silent", clearScreen: false, cacheDir: job.cacheDir },
  );
  try {
    await vitest.start();
  } finally {
    await vitest.close();
  }
  send({ type: "done" });
}

// The parent died or gave up on us: take vitest's workers down with this process group,
// since a worker stuck in a synchronous loop would otherwise spin on as an orphan.
process.on("disconnect", () => {
  try {
    process.kill(-process.pid, "SIGKILL");
  } catch {
    process.exit(1);
  }
});

process.on("message", (message) => {
  const job = /** @type {{ type: string, job: Parameters<typeof run>[0] }} */ (message).job;
  run(job).then(
    () => process.exit(0),
    (error) => {
      send({ type: "fatal", message: error instanceof Error ? error.stack : String(error) });
      process.exit(1);
    },
  );
});
