/**
 * The one protocol between `runner.ts` (the verifier's process) and `runner-child.ts` (its
 * vitest process): the parent sends one `run` job; the child streams the messages below
 * over the IPC channel, and the parent validates each one here, at the boundary.
 */
import { z } from "zod";
import type { PackageTestRun, RunTarget } from "./targets.ts";

const serializedError = z.object({ name: z.string(), message: z.string(), stack: z.string() });

/** How a test was declared: plain, or with a modifier that keeps it from proving anything. */
const testModifier = z.enum(["skip", "todo", "fails"]);
const testState = z.enum(["passed", "failed", "skipped"]);

const moduleReport = z.object({
  /** The target's label. */
  project: z.string(),
  file: z.string(),
  errors: z.array(serializedError),
  tests: z.array(
    z.object({
      name: z.string(),
      state: testState,
      /**
       * Present when the test (or a suite around it) was declared with skip/todo/fails, or
       * was left out by another test's `.only` (which itself keeps no mark once interpreted).
       */
      modifier: testModifier.optional(),
      errors: z.array(serializedError),
    }),
  ),
});

const packageModuleReport = z.object({
  /** The package run's label. */
  label: z.string(),
  file: z.string(),
  errors: z.array(serializedError),
  tests: z.array(
    z.object({
      name: z.string(),
      state: testState,
      /** A failed test's first error, its first line: what to read first. */
      error: z.string().optional(),
    }),
  ),
});

/** Every message the child sends, discriminated by `type`. */
const childMessageSchema = z.discriminatedUnion("type", [
  /** vitest planned these files: lab files per target label, package files per run label. */
  z.object({
    type: z.literal("planned"),
    files: z.array(z.object({ project: z.string(), file: z.string() })),
  }),
  /**
   * A sign of life for the backstop: a file queued or collected, a test started or ended
   * (named, so a stall can say which tests were still running).
   */
  z.object({
    type: z.literal("progress"),
    started: z.string().optional(),
    ended: z.string().optional(),
  }),
  /** A lab test file finished: its tests with their states and errors. */
  z.object({ type: z.literal("module"), ...moduleReport.shape }),
  /** A file under the lab's tests/ imported something lab tests may not import. */
  z.object({
    type: z.literal("forbidden-import"),
    project: z.string(),
    importer: z.string(),
    specifier: z.string(),
  }),
  /** A test file of a package run (its package's own config) finished. */
  z.object({ type: z.literal("package-module"), ...packageModuleReport.shape }),
  /**
   * vitest's run ended. `unhandledErrors`: the first lines of the errors it reported outside
   * any test (a worker that exited unexpectedly…): a planned file without a report is why.
   */
  z.object({ type: z.literal("done"), unhandledErrors: z.array(z.string()) }),
  /** vitest failed outside the tests (could not start, crashed). */
  z.object({ type: z.literal("fatal"), message: z.string() }),
]);

export type ChildMessage = z.infer<typeof childMessageSchema>;
export type ModuleReport = z.infer<typeof moduleReport>;
export type PackageModuleReport = z.infer<typeof packageModuleReport>;

/** One target as the child receives it: every path absolute, `srcDir` filled in. */
export type ChildTarget = RunTarget & { readonly srcDir: string };

/** A package run as the child receives it, with the package's vitest config file if any. */
export type ChildPackageRun = PackageTestRun & { readonly configFile?: string };

/** The one message the parent sends: the job of this child process. */
export interface RunJob {
  readonly type: "run";
  readonly root: string;
  readonly cacheDir: string;
  readonly targets: readonly ChildTarget[];
  readonly packages: readonly ChildPackageRun[];
  readonly maxWorkers: number;
}

/** Parses one message from the child; a malformed one is reported, not trusted. */
export function parseChildMessage(
  raw: unknown,
): { ok: true; message: ChildMessage } | { ok: false; problem: string } {
  const parsed = childMessageSchema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  return { ok: false, problem: z.prettifyError(parsed.error) };
}
