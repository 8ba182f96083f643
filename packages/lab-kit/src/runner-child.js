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
import { BaseSequencer, createVitest } from "vitest/node";
import { SOURCE_SSR_CONDITIONS } from "../../../source-condition.js";
import { LAB_ALIAS, LAB_TEST_TIMEOUT_MS } from "./lab-test-settings.js";
import { commonAncestor, targetOfFile } from "./runner-paths.js";

/** @param {import("./runner-protocol.ts").ChildMessage} message */
function send(message) {
  if (process.send) process.send(message);
}

/** The lab's own tests folder of a target, where its reported files are. */
function labTestsDir(/** @type {ChildTarget} */ target) {
  return path.join(target.labDir, "tests");
}

/**
 * A path or text with the target's copy of the tests folder replaced by the lab's own, so
 * no report names a copy.
 * @param {ChildTarget | undefined} target @param {string} text
 */
function restorePaths(target, text) {
  return target === undefined || target.testsDir === labTestsDir(target)
    ? text
    : text.split(target.testsDir).join(labTestsDir(target));
}

/**
 * Errors as the parent receives them, with a target's copy paths restored.
 * @param {ChildTarget | undefined} target
 * @param {readonly { name?: string, message?: string, stack?: string }[] | undefined} errors
 */
function serializeErrors(target, errors) {
  return (errors ?? []).map((error) => ({
    name: error.name ?? "Error",
    message: restorePaths(target, error.message ?? String(error)),
    stack: restorePaths(target, error.stack ?? ""),
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

/** @typedef {import("./runner-protocol.ts").ChildTarget} ChildTarget */

/**
 * Each project's targets, by project name. A file belongs to the target of its project
 * whose tests folder holds it (targets alone share the lab's own folder, not a project).
 * @type {Map<string, readonly ChildTarget[]>}
 */
const projectMembers = new Map();

/**
 * The target a test file of vitest's belongs to, and the file as the lab names it.
 * @param {{ project: { name: string }, moduleId: string }} module
 */
function locate({ project, moduleId }) {
  const target = targetOfFile(projectMembers.get(project.name) ?? [], moduleId);
  if (target === undefined) throw new Error(`lab-kit: no target runs ${moduleId}`);
  return { target, label: target.label, file: restorePaths(target, moduleId) };
}

/**
 * Package runs by project name: their files run with the package's own config and are
 * reported as `package-module` only (no lab target, no import or hang watch of their own).
 * @type {Map<string, import("./runner-protocol.ts").ChildPackageRun>}
 */
const packageProjects = new Map();

/** @param {{ project: { name: string } }} module */
function isPackageModule({ project }) {
  return packageProjects.has(project.name);
}

/** A reporter that streams each event to the parent as soon as vitest knows it. */
const streamingReporter = {
  /** @param {ReadonlyArray<import("vitest/node").TestSpecification>} specifications */
  onTestRunStart(specifications) {
    send({
      type: "planned",
      modules: specifications
        .filter((spec) => !isPackageModule(spec))
        .map((spec) => {
          const { label, file } = locate(spec);
          return { project: label, file };
        }),
    });
  },
  /** @param {import("vitest/node").TestModule} testModule */
  onTestModuleQueued(testModule) {
    if (isPackageModule(testModule)) return;
    const { label, file } = locate(testModule);
    send({ type: "module-queued", project: label, file });
  },
  /** @param {import("vitest/node").TestModule} testModule */
  onTestModuleCollected(testModule) {
    if (isPackageModule(testModule)) return;
    const { label, file } = locate(testModule);
    send({ type: "module-collected", project: label, file });
  },
  /** @param {import("vitest/node").TestModule} testModule */
  onTestModuleEnd(testModule) {
    const run = packageProjects.get(testModule.project.name);
    if (run !== undefined) {
      send({
        type: "package-module",
        label: run.label,
        file: testModule.moduleId,
        errors: serializeErrors(undefined, testModule.errors()),
        tests: [...testModule.children.allTests()].map((testCase) => ({
          name: testCase.fullName,
          state: stateOf(testCase),
        })),
      });
      return;
    }
    const { target, label, file } = locate(testModule);
    const tests = [...testModule.children.allTests()].map((testCase) => ({
      name: testCase.fullName,
      state: stateOf(testCase),
      ...modifierOf(testCase),
      errors: serializeErrors(target, testCase.result().errors),
    }));
    send({
      type: "module",
      project: label,
      file,
      errors: serializeErrors(target, testModule.errors()),
      tests,
    });
  },
};

const SETUP_FILE = path.join(import.meta.dirname, "runner-setup.js");
const LAB_RUNNER = path.join(import.meta.dirname, "runner-lab.js");
const PACKAGE_SETUP_FILE = path.join(import.meta.dirname, "runner-package-setup.js");
const PROGRESS_CHANNEL = `lab-kit-progress-${process.pid}`;

/**
 * Resolves `@lab` for a file under a target's tests folder to that target's sources, and
 * reports every import made by such a file that is not `vitest`, `@lab`, a `node:`
 * built-in or a file inside the tests folder. Runs in vite's resolver, so no spelling
 * (dynamic import, computed path, re-export through a helper) escapes it.
 * @param {readonly ChildTarget[]} members
 */
function labPlugin(members) {
  return {
    name: "lab-kit:lab-imports",
    enforce: /** @type {const} */ ("pre"),
    /** @param {string} source @param {string | undefined} importer */
    resolveId(source, importer) {
      const from = importer?.split("?")[0];
      const target = from === undefined ? undefined : targetOfFile(members, from);
      if (from === undefined || target === undefined) return null;
      if (source === LAB_ALIAS) return path.join(target.srcDir, "index.ts");
      // A virtual module of vite itself (e.g. its dynamic-import helper), never a lab file.
      if (source.startsWith("\0")) return null;
      const allowed =
        source === "vitest" ||
        (source.startsWith("node:") && isBuiltin(source)) ||
        (source.startsWith(".") &&
          path.resolve(path.dirname(from), source).startsWith(target.testsDir + path.sep));
      if (!allowed) {
        send({
          type: "forbidden-import",
          project: target.label,
          importer: restorePaths(target, from),
          specifier: source,
        });
      }
      return null;
    },
  };
}

/**
 * One inline vitest project: one target alone, or a worker group's targets together (each
 * from its own copy of the tests, `@lab` bound per file to that target's sources). A
 * group's project does not isolate its files, so a worker that finishes one runs the next
 * instead of a fresh worker starting for each (~0.3 s of CPU each on this path); its
 * targets have distinct sources, so no module of a lab is shared between them.
 * @param {string} name @param {readonly ChildTarget[]} members @param {boolean} shared
 */
function projectFor(name, members, shared) {
  projectMembers.set(name, members);
  const root = commonAncestor(members.map((member) => member.packageDir));
  const dir = commonAncestor(members.map((member) => path.dirname(member.testsDir)));
  const posix = (/** @type {string} */ file) => path.relative(dir, file).split(path.sep).join("/");
  return {
    root,
    plugins: [labPlugin(members)],
    // Inline PostCSS options: without them vite searches every folder up to the file
    // system root for a PostCSS config, per project (a fifth of this process's CPU time
    // with lab 05's nine targets). Lab tests import no CSS.
    css: { postcss: {} },
    // @coding-agent/* resolve to their src/, never to a build.
    ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
    test: {
      name,
      root,
      dir,
      include: members.map((member) => `${posix(member.testsDir)}/**/*.test.ts`),
      exclude: [
        "**/node_modules/**",
        ...members.flatMap((member) =>
          member.exclude.map((file) =>
            posix(path.join(member.testsDir, path.relative(labTestsDir(member), file))),
          ),
        ),
      ],
      // The runner sets each file's own (its target's); this is the longest of them.
      testTimeout: Math.max(...members.map((member) => member.testTimeoutMs)),
      hookTimeout: Math.max(...members.map((member) => member.testTimeoutMs)),
      isolate: !shared,
      // A test without a single `expect` proves nothing: it fails.
      expect: { requireAssertions: true },
      // `.only` shows as the other tests being skipped, not as a load error.
      allowOnly: true,
      // Threads start faster than forks; a worker stuck in a synchronous loop is still
      // ended, since the parent kills this whole process.
      pool: "threads",
      setupFiles: [SETUP_FILE],
      runner: LAB_RUNNER,
      provide: {
        labKitChannel: PROGRESS_CHANNEL,
        labKitTargets: members.map((member) => ({
          label: member.label,
          testsDir: member.testsDir,
          timeout: member.testTimeoutMs,
          skip: [...member.skip],
          ...(member.shuffleSeed === undefined ? {} : { shuffleSeed: member.shuffleSeed }),
        })),
      },
    },
  };
}

/**
 * vitest's order (slowest file first, from its cache) within three bands: the lab targets
 * that run alone, then each worker group's files together (a worker that finishes a
 * group's file is reused only when the next file in the queue is of the same project),
 * then the package runs' files. A package file starts a forked process of its own, the
 * dearest start there is; queued before a group, it kept the group's files waiting on a
 * single worker (lab 05: ~0.13 s more per verify).
 */
class LabSequencer extends BaseSequencer {
  /** @param {import("vitest/node").TestSpecification[]} files */
  async sort(files) {
    const sorted = await super.sort(files);
    const labFiles = sorted.filter((spec) => !packageProjects.has(spec.project.name));
    const alone = labFiles.filter((spec) => spec.project.config.isolate !== false);
    const grouped = labFiles.filter((spec) => spec.project.config.isolate === false);
    const names = [...new Set(grouped.map((spec) => spec.project.name))];
    return [
      ...alone,
      ...names.flatMap((name) => grouped.filter((spec) => spec.project.name === name)),
      ...sorted.filter((spec) => packageProjects.has(spec.project.name)),
    ];
  }
}

/**
 * A package run's project: the package's own config (`extends`) and root, with exactly the
 * run's files. vitest merges an inline project's `include` into the config's (the union:
 * every test of the package), so a last config hook sets it instead. The package's own
 * `maxWorkers` would make vitest refuse the mix of projects: this process sets the workers.
 * Its sources have no `@lab` to resolve, so vitest's on-disk cache of transformed modules
 * (keyed by path, content and config) is safe here and spares transforming them each time.
 * @param {import("./runner-protocol.ts").ChildPackageRun} run
 */
function packageProjectFor(run) {
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
        enforce: /** @type {const} */ ("post"),
        /** @param {{ test?: Record<string, unknown> }} config */
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
    },
  };
}

/** The projects of a job: one per target alone, one per worker group, one per package run. */
function projectsOf(
  /** @type {readonly ChildTarget[]} */ targets,
  /** @type {readonly import("./runner-protocol.ts").ChildPackageRun[]} */ packages,
) {
  const groups = new Map();
  const projects = [];
  for (const target of targets) {
    if (target.workerGroup === undefined) {
      projects.push(projectFor(target.label, [target], false));
      continue;
    }
    const members = groups.get(target.workerGroup) ?? [];
    members.push(target);
    groups.set(target.workerGroup, members);
  }
  for (const [name, members] of groups) projects.push(projectFor(`group:${name}`, members, true));
  for (const run of packages) projects.push(packageProjectFor(run));
  return projects;
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
      projects: projectsOf(job.targets, job.packages),
      sequence: { sequencer: LabSequencer },
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
    // Every report is sent and vitest has written its results cache: the parent needs
    // nothing more, and closing vitest (workers, servers) takes another ~0.3 s that the
    // parent need not wait for: it ends this process group on `done`.
    send({ type: "done" });
  } finally {
    await vitest.close();
    progress.close();
  }
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
