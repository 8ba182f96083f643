/**
 * The vitest side of `runLabTargets` (`runner.ts`), in a child process so that the parent's
 * backstop can end it, workers and all, when a hang no loop guard reaches keeps it from
 * finishing. Protocol: `protocol.ts`.
 */
import { flushCompileCache } from "node:module";
import path from "node:path";
import type { TestProjectInlineConfiguration } from "vitest/config";
import type { TestCase, TestModule } from "vitest/node";
import { createVitest, type Reporter, type TestSpecification } from "vitest/node";
import { defineLabConfig } from "./lab-config.ts";
import { labImportsPlugin } from "./lab-imports.ts";
import { LongestFirst } from "./longest-first.ts";
import type { ChildMessage, ChildPackageRun, ChildTarget, RunJob } from "./protocol.ts";
import { LAB_TEST_TIMEOUT_MS } from "./settings.ts";

function send(message: ChildMessage): void {
  process.send?.(message);
}

/** Package runs by project name: reported as `package-module`, with their run's label. */
const packageProjects = new Map<string, ChildPackageRun>();

function serializeErrors(
  errors: readonly { name?: string; message?: string; stack?: string }[] | undefined,
) {
  return (errors ?? []).map((error) => ({
    name: error.name ?? "Error",
    message: error.message ?? String(error),
    stack: error.stack ?? "",
  }));
}

/** A failed test's first error as one line (its message's first line), if it has one. */
function firstErrorOf(testCase: TestCase): { error?: string } {
  const [first] = testCase.result().errors ?? [];
  const line = first?.message?.split("\n")[0]?.trim();
  return line ? { error: line.slice(0, 300) } : {};
}

/**
 * The modifier a test was declared with, if any: `.skip`/`.skipIf`/`.runIf` (mode skip),
 * `.todo`, `.fails`. Tests left out because another test is `.only` show `skip` (vitest
 * turns the `.only` test itself back into a plain one).
 */
function modifierOf(testCase: TestCase): { modifier?: "skip" | "todo" | "fails" } {
  const { mode, fails } = testCase.options;
  if (mode === "skip" || mode === "todo") return { modifier: mode };
  return fails === true ? { modifier: "fails" } : {};
}

function stateOf(testCase: TestCase): "passed" | "failed" | "skipped" {
  const state = testCase.result().state;
  return state === "pending" ? "skipped" : state;
}

/** First lines of the errors vitest reported outside any test, for `done`. */
let unhandledErrors: string[] = [];

const reporter: Reporter = {
  onTestRunEnd(_modules, errors) {
    unhandledErrors = errors.map((error) => {
      const first = (error.message ?? String(error)).split("\n")[0] ?? "";
      // "[vitest-pool]: Worker forks emitted error." says why only in its cause.
      const cause = (error as { cause?: unknown }).cause;
      return cause instanceof Error ? `${first} ${cause.message}` : first;
    });
  },
  onTestRunStart(specifications: readonly TestSpecification[]) {
    send({
      type: "planned",
      files: specifications.map((spec) => ({
        project: packageProjects.get(spec.project.name)?.label ?? spec.project.name,
        file: spec.moduleId,
      })),
    });
  },
  onTestModuleQueued: () => send({ type: "progress" }),
  onTestModuleCollected: () => send({ type: "progress" }),
  onTestCaseReady: (testCase: TestCase) => send({ type: "progress", started: testCase.fullName }),
  onTestCaseResult: (testCase: TestCase) => send({ type: "progress", ended: testCase.fullName }),
  onTestModuleEnd(testModule: TestModule) {
    const run = packageProjects.get(testModule.project.name);
    const tests = [...testModule.children.allTests()];
    if (run !== undefined) {
      send({
        type: "package-module",
        label: run.label,
        file: testModule.moduleId,
        errors: serializeErrors(testModule.errors()),
        tests: tests.map((testCase) => ({
          name: testCase.fullName,
          state: stateOf(testCase),
          ...firstErrorOf(testCase),
        })),
      });
      return;
    }
    send({
      type: "module",
      project: testModule.project.name,
      file: testModule.moduleId,
      errors: serializeErrors(testModule.errors()),
      tests: tests.map((testCase) => ({
        name: testCase.fullName,
        state: stateOf(testCase),
        ...modifierOf(testCase),
        errors: serializeErrors(testCase.result().errors),
      })),
    });
  },
};

const SHUFFLED_RUNNER = path.join(import.meta.dirname, "lab-runner.ts");
const PACKAGE_SETUP_FILE = path.join(import.meta.dirname, "package-setup.ts");

/** One target's project: the lab config on its sources, with the verifier's rules. */
function labProject(target: ChildTarget): TestProjectInlineConfiguration {
  const {
    resolve: _alias,
    plugins = [],
    test = {},
    ...config
  } = defineLabConfig(target.packageDir, { srcDir: target.srcDir, warnIfTestsChanged: false });
  const testsDir = path.join(target.labDir, "tests");
  const shuffled = target.shuffleSeed !== undefined;
  return {
    ...config,
    plugins: [
      ...plugins,
      // Resolves `@lab` itself (instead of the config's alias, which would hide it from the
      // import check) and reports what the tests may not import.
      labImportsPlugin({
        testsDir,
        srcDir: target.srcDir,
        onForbidden: (importer, specifier) =>
          send({ type: "forbidden-import", project: target.label, importer, specifier }),
      }),
    ],
    test: {
      ...test,
      name: target.label,
      // A test without a single `expect` proves nothing: it fails.
      expect: { requireAssertions: true },
      // `.only` shows as the other tests being skipped, not as a load error.
      allowOnly: true,
      // Threads start faster than forks; a worker stuck outside the loop guard is still
      // ended, since the parent kills this whole process group.
      pool: "threads",
      ...(shuffled
        ? { runner: SHUFFLED_RUNNER, provide: { labKitShuffleSeed: target.shuffleSeed } }
        : {}),
    } as TestProjectInlineConfiguration["test"],
  };
}

/**
 * A package run's project: the package's own config (`extends`) and root, with exactly the
 * run's files. vitest merges an inline project's `include` into the config's (the union:
 * every test of the package), so a last config hook sets it instead; the package's own
 * `maxWorkers` would make vitest refuse the mix of projects. Its sources have no `@lab`, so
 * vitest's on-disk cache of transformed modules is safe here.
 */
function packageProject(run: ChildPackageRun): TestProjectInlineConfiguration {
  const name = `package:${run.label}`;
  packageProjects.set(name, run);
  const include = run.files.map((file) =>
    path.relative(run.packageDir, file).split(path.sep).join("/"),
  );
  return {
    ...(run.configFile === undefined ? {} : { extends: run.configFile }),
    root: run.packageDir,
    plugins: [
      {
        name: "lab-kit:package-files",
        enforce: "post",
        config(config) {
          config.test ??= {};
          config.test.include = include;
          delete config.test.maxWorkers;
        },
      },
    ],
    test: {
      name,
      root: run.packageDir,
      // Added to the config's own setup files (vitest merges the lists), before them.
      setupFiles: [PACKAGE_SETUP_FILE],
      provide: { labKitPackageDir: run.packageDir },
      experimental: { fsModuleCache: true },
    } as TestProjectInlineConfiguration["test"],
  };
}

async function run(job: RunJob): Promise<void> {
  const vitest = await createVitest(
    "test",
    {
      root: job.root,
      config: false,
      watch: false,
      reporters: [reporter],
      projects: [...job.targets.map(labProject), ...job.packages.map(packageProject)],
      passWithNoTests: true,
      teardownTimeout: LAB_TEST_TIMEOUT_MS,
      maxWorkers: job.maxWorkers,
      sequence: { sequencer: LongestFirst },
    },
    // The cache (file durations, so the slowest file starts first) lives in a package's
    // node_modules, not in a new node_modules inside the lab folder.
    { logLevel: "silent", clearScreen: false, cacheDir: job.cacheDir },
  );
  try {
    await vitest.start();
    // Node writes its compile cache at exit, which a killed process never reaches.
    flushCompileCache();
    // Every report is sent: the parent ends this process group on `done`, without waiting
    // for vitest to close its workers and servers.
    send({ type: "done", unhandledErrors });
  } finally {
    await vitest.close();
  }
}

// The parent died or gave up on us: take vitest's workers down with this process group,
// since a worker stuck in a loop would otherwise spin on as an orphan.
process.on("disconnect", () => {
  try {
    process.kill(-process.pid, "SIGKILL");
  } catch {
    process.exit(1);
  }
});

process.once("message", (message) => {
  run(message as RunJob).then(
    () => process.exit(0),
    (error: unknown) => {
      send({
        type: "fatal",
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      process.exit(1);
    },
  );
});
