// The vitest side of runLabTargets (runner.ts), run in a child process so the parent can
// kill it when a learner's synchronous endless loop blocks a worker past any timeout.
// Plain JavaScript on purpose: Node 20 cannot run TypeScript without a loader, and a loader
// would add start-up time to every verify.
//
// Protocol: `runner-protocol.ts` (the parent validates every message there). The parent
// sends one `run` job; this process streams `planned`, `module-queued`, `module-collected`,
// `test-start`, `test-end` (forwarded from runner-setup.js in the workers), `module` and
// `forbidden-import`, and ends with `done` (or `fatal`).
import { isBuiltin } from "node:module";
import path from "node:path";
import { createVitest } from "vitest/node";
import { SOURCE_SSR_CONDITIONS } from "../../../source-condition.js";
import { LAB_ALIAS, LAB_TEST_TIMEOUT_MS } from "./lab-test-settings.js";

/** @param {import("./runner-protocol.ts").ChildMessage} message */
function send(message) {
  if (process.send) process.send(message);
}

/** @param {readonly { name?: string, message?: string, stack?: string }[] | undefined} errors */
function serializeErrors(errors) {
  return (errors ?? []).map((error) => ({
    name: error.name ?? "Error",
    message: error.message ?? String(error),
    stack: error.stack ?? "",
  }));
}

/**
 * The modifier a test was declared with, if any: `.skip`/`.skipIf`/`.runIf` (mode skip),
 * `.todo`, `.fails`. Tests left out because another test is `.only` show `skip` (vitest
 * turns the `.only` test itself back into a plain one).
 * @param {import("vitest/node").TestCase} testCase
 */
function modifierOf(testCase) {
  const { mode, fails } = testCase.options;
  if (mode === "skip" || mode === "todo") return { modifier: mode };
  return fails ? { modifier: "fails" } : {};
}

/** @param {import("vitest/node").TestCase} testCase */
function stateOf(testCase) {
  const state = testCase.result().state;
  return state === "pending" ? "skipped" : state;
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
  /** @param {import("vitest/node").TestModule} testModule */
  onTestModuleQueued(testModule) {
    send({ type: "module-queued", project: testModule.project.name, file: testModule.moduleId });
  },
  /** @param {import("vitest/node").TestModule} testModule */
  onTestModuleCollected(testModule) {
    send({
      type: "module-collected",
      project: testModule.project.name,
      file: testModule.moduleId,
    });
  },
  /** @param {import("vitest/node").TestModule} testModule */
  onTestModuleEnd(testModule) {
    const tests = [...testModule.children.allTests()].map((testCase) => ({
      name: testCase.fullName,
      state: stateOf(testCase),
      ...modifierOf(testCase),
      errors: serializeErrors(testCase.result().errors),
    }));
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
const SHUFFLE_RUNNER = path.join(import.meta.dirname, "runner-shuffle.js");
const PROGRESS_CHANNEL = `lab-kit-progress-${process.pid}`;

/**
 * Reports every import made by a file under the lab's `tests/` that is not `vitest`,
 * `@lab`, a `node:` built-in or a file inside `tests/`. Runs in vite's resolver, so no
 * spelling (dynamic import, computed path, re-export through a helper) escapes it.
 * @param {import("./runner-protocol.ts").ChildTarget} target
 */
function importGuard(target) {
  const testsDir = path.join(target.labDir, "tests") + path.sep;
  const labEntry = path.join(target.srcDir, "index.ts");
  return {
    name: "lab-kit:test-imports",
    enforce: /** @type {const} */ ("pre"),
    /** @param {string} source @param {string | undefined} importer */
    resolveId(source, importer) {
      const from = importer?.split("?")[0];
      if (from === undefined || !from.startsWith(testsDir)) return null;
      // A virtual module of vite itself (e.g. its dynamic-import helper), never a lab file.
      if (source.startsWith("\0")) return null;
      const allowed =
        source === "vitest" ||
        source === LAB_ALIAS ||
        source === labEntry ||
        (source.startsWith("node:") && isBuiltin(source)) ||
        (source.startsWith(".") && path.resolve(path.dirname(from), source).startsWith(testsDir));
      if (!allowed) {
        send({
          type: "forbidden-import",
          project: target.label,
          importer: from,
          specifier: source,
        });
      }
      return null;
    },
  };
}

/**
 * One inline vitest project per target: the lab's tests, `@lab` bound to the target's sources.
 * @param {import("./runner-protocol.ts").ChildTarget} target
 */
function projectFor(target) {
  return {
    root: target.packageDir,
    plugins: [importGuard(target)],
    // Inline PostCSS options: without them vite searches every folder up to the file
    // system root for a PostCSS config, per project (a fifth of this process's CPU time
    // with lab 05's nine targets). Lab tests import no CSS.
    css: { postcss: {} },
    resolve: {
      alias: [{ find: LAB_ALIAS, replacement: path.join(target.srcDir, "index.ts") }],
    },
    // @coding-agent/* resolve to their src/, never to a build.
    ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
    test: {
      name: target.label,
      root: target.packageDir,
      dir: target.labDir,
      include: ["tests/**/*.test.ts"],
      exclude: [
        "**/node_modules/**",
        ...target.exclude.map((file) => path.relative(target.labDir, file)),
      ],
      testTimeout: target.testTimeoutMs,
      hookTimeout: target.testTimeoutMs,
      // A test without a single `expect` proves nothing: it fails.
      expect: { requireAssertions: true },
      // `.only` shows as the other tests being skipped, not as a load error.
      allowOnly: true,
      // Threads start faster than forks; a worker stuck in a synchronous loop is still
      // ended, since the parent kills this whole process.
      pool: "threads",
      setupFiles: [SETUP_FILE],
      // vitest 4 takes `sequence.shuffle` and its seed from the root config only; this
      // project's own runner shuffles, so a shuffled target needs no process of its own.
      ...(target.shuffleSeed === undefined ? {} : { runner: SHUFFLE_RUNNER }),
      provide: {
        labKitLabel: target.label,
        labKitChannel: PROGRESS_CHANNEL,
        labKitSkip: [...target.skip],
        ...(target.shuffleSeed === undefined ? {} : { labKitShuffleSeed: target.shuffleSeed }),
      },
    },
  };
}

/** @param {import("./runner-protocol.ts").RunJob} job */
async function run(job) {
  const progress = new BroadcastChannel(PROGRESS_CHANNEL);
  progress.onmessage = (event) => send(/** @type {MessageEvent} */ (event).data);
  const vitest = await createVitest(
    "test",
    {
      root: job.root,
      config: false,
      watch: false,
      reporters: [streamingReporter],
      projects: job.targets.map(projectFor),
      passWithNoTests: true,
      teardownTimeout: LAB_TEST_TIMEOUT_MS,
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
    progress.close();
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
  run(/** @type {import("./runner-protocol.ts").RunJob} */ (message)).then(
    () => process.exit(0),
    (error) => {
      send({
        type: "fatal",
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      process.exit(1);
    },
  );
});
