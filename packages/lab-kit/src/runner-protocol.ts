/**
 * The one protocol between the runner's processes: `runner-process.ts` (parent) sends a
 * `run` job to `runner-child.js` (a vitest process), which streams the messages below back
 * over the IPC channel. `runner-setup.js`, inside vitest's worker threads, reports each
 * test's start and end to the child over a BroadcastChannel (a message posted before a
 * test blocks its thread still arrives); the child forwards them as `test-start` and
 * `test-end`. The parent validates every message here, at the boundary.
 */
import { z } from "zod";

const serializedError = z.object({
  name: z.string(),
  message: z.string(),
  stack: z.string(),
});

/** How a test was declared: plain, or with a modifier that keeps it from proving anything. */
export const testModifier = z.enum(["skip", "todo", "fails"]);

const testReport = z.object({
  name: z.string(),
  state: z.enum(["passed", "failed", "skipped"]),
  /**
   * Present when the test (or a suite around it) was declared with skip/todo/fails, or
   * was left out by another test's `.only` (which itself keeps no mark once interpreted).
   */
  modifier: testModifier.optional(),
  errors: z.array(serializedError),
});

const moduleReport = z.object({
  project: z.string(),
  file: z.string(),
  errors: z.array(serializedError),
  tests: z.array(testReport),
});

const projectFile = z.object({ project: z.string(), file: z.string() });

const packageModuleReport = z.object({
  /** The package run's label. */
  label: z.string(),
  file: z.string(),
  errors: z.array(serializedError),
  tests: z.array(z.object({ name: z.string(), state: z.enum(["passed", "failed", "skipped"]) })),
});

/** Every message the child sends, discriminated by `type`. */
export const childMessageSchema = z.discriminatedUnion("type", [
  /** vitest planned these files, per project (= target label). */
  z.object({ type: z.literal("planned"), modules: z.array(projectFile) }),
  /** A worker started importing a test file (its setup files, then the file itself). */
  z.object({ type: z.literal("module-queued"), project: z.string(), file: z.string() }),
  /** The file finished importing: its tests are known. */
  z.object({ type: z.literal("module-collected"), project: z.string(), file: z.string() }),
  /** A test is about to run (sent from its worker before the test body starts). */
  /** `timeout`: the test's own, when it set one longer than its target's. */
  z.object({
    type: z.literal("test-start"),
    project: z.string(),
    name: z.string(),
    timeout: z.number().optional(),
  }),
  z.object({ type: z.literal("test-end"), project: z.string(), name: z.string() }),
  /** A test file finished: its tests with their states and errors. */
  z.object({ type: z.literal("module"), ...moduleReport.shape }),
  /** A file under the lab's tests/ imported something other than vitest, @lab, node:, ./ */
  z.object({
    type: z.literal("forbidden-import"),
    project: z.string(),
    importer: z.string(),
    specifier: z.string(),
  }),
  /** A test file of a package run (its package's own config) finished. */
  z.object({ type: z.literal("package-module"), ...packageModuleReport.shape }),
  /** vitest finished every planned file. */
  z.object({ type: z.literal("done") }),
  /** vitest failed outside the tests (could not start, crashed). */
  z.object({ type: z.literal("fatal"), message: z.string() }),
]);

export type ChildMessage = z.infer<typeof childMessageSchema>;
export type ModuleReport = z.infer<typeof moduleReport>;
export type PackageModuleReport = z.infer<typeof packageModuleReport>;
export type TestModifier = z.infer<typeof testModifier>;

/** One target as the child process receives it: every path absolute, every default filled. */
export interface ChildTarget {
  readonly label: string;
  readonly labDir: string;
  readonly packageDir: string;
  readonly srcDir: string;
  /**
   * Where the target's test files run from: the lab's own `tests/`, or, for a target of a
   * worker group, a copy of it (one file path per target and project). Every path the
   * child reports is the lab's own (`<labDir>/tests/…`), never the copy's.
   */
  readonly testsDir: string;
  /** Targets with the same group run as one vitest project in shared workers. */
  readonly workerGroup?: string;
  readonly testTimeoutMs: number;
  /** Run this target's tests in the order this seed gives (see runner-lab.js). */
  readonly shuffleSeed?: number;
  /** Tests (full names) an earlier round found blocking their worker; skipped this time. */
  readonly skip: readonly string[];
  /** Test files (absolute) an earlier round found stuck while importing; left out this time. */
  readonly exclude: readonly string[];
}

/** Test files of one workspace package, run as that package's own `vitest run` would. */
export interface ChildPackageRun {
  readonly label: string;
  readonly packageDir: string;
  /** The package's vitest config file, when it has one. */
  readonly configFile?: string;
  /** Absolute paths of the test files to run (and only those). */
  readonly files: readonly string[];
}

/** The one message the parent sends: the job of this child process. */
export interface RunJob {
  readonly type: "run";
  readonly root: string;
  readonly cacheDir: string;
  readonly targets: readonly ChildTarget[];
  /** Test files run with their own package's vitest config, beside the targets. */
  readonly packages: readonly ChildPackageRun[];
  readonly maxWorkers?: number;
}

/** Parses one message from the child; a malformed one is reported, not trusted. */
export function parseChildMessage(
  raw: unknown,
): { ok: true; message: ChildMessage } | { ok: false; problem: string } {
  const parsed = childMessageSchema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  return { ok: false, problem: z.prettifyError(parsed.error) };
}
