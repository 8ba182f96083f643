/**
 * The contract of the lab test runner (`runner.ts`): run a lab's shared tests against one or
 * more source folders in one vitest process, and report every test's name, state and, for a
 * failure, its kind.
 */
import { z } from "zod";

/** One set of sources to run a lab's tests against (a starter, a solution, a mutant…). */
export interface RunTarget {
  /** Unique label of this target inside one run, e.g. `05:solution`, `05:gate:drop-push`. */
  readonly label: string;
  /** The lab folder (holds `tests/`). */
  readonly labDir: string;
  /** The package folder whose node_modules resolve imports (the starter or solution). */
  readonly packageDir: string;
  /** Folder whose `index.ts` the tests import as `@lab`; defaults to `<packageDir>/src`. */
  readonly srcDir?: string;
  /** Run the tests in a shuffled order with this seed. */
  readonly shuffleSeed?: number;
}

const failureKindSchema = z.enum(["assertion", "load", "timeout", "error", "no-assertions"]);
/**
 * Why a test failed. `load`: the test file could not be loaded (syntax, import, type).
 * `no-assertions`: the test ran without a single `expect` (it proves nothing).
 */
export type FailureKind = z.infer<typeof failureKindSchema>;

const testOutcomeSchema = z
  .object({
    /** Full name: describe titles and the test title joined by " > ". */
    name: z.string(),
    file: z.string(),
    state: z.enum(["passed", "failed", "skipped"]),
    failure: z.object({ kind: failureKindSchema, message: z.string() }).readonly().optional(),
    /**
     * Set when the test was declared so that it cannot prove anything on every target:
     * `.skip`/`.skipIf`/`.runIf` or left out by another test's `.only` (vitest keeps no mark
     * on the `.only` test itself), `.todo`, `.fails`.
     */
    modifier: z.enum(["skip", "todo", "fails"]).optional(),
  })
  .readonly();
export type TestOutcome = z.infer<typeof testOutcomeSchema>;

const fileProblem = <T extends z.ZodRawShape>(shape: T) =>
  z.array(z.object({ file: z.string(), ...shape }).readonly()).readonly();

/** What one target's run did; also the shape the lessons cache stores (`report-cache.ts`). */
export const targetReportSchema = z
  .object({
    label: z.string(),
    tests: z.array(testOutcomeSchema).readonly(),
    /** Test files that failed to load, with the reason; their tests are absent from `tests`. */
    loadErrors: fileProblem({ message: z.string() }),
    /** Imports a file under `tests/` made other than those lab tests may make (`lab-imports.ts`). */
    forbiddenImports: fileProblem({ specifier: z.string() }).optional(),
  })
  .readonly();
export type TargetReport = z.infer<typeof targetReportSchema>;

/** Test files of one workspace package, to run as the package's own `vitest run` would. */
export interface PackageTestRun {
  readonly label: string;
  /** The package folder (holds its vitest config, if any). */
  readonly packageDir: string;
  /** Absolute paths of the test files to run (and only those). */
  readonly files: readonly string[];
}

/** What one package test file did. */
export interface PackageTestFile {
  /** The package run's label. */
  readonly label: string;
  /** Absolute path. */
  readonly file: string;
  /** Full names (describe titles and the title joined by " > ") with their states. */
  readonly tests: readonly {
    readonly name: string;
    readonly state: "passed" | "failed" | "skipped";
    /** A failed test's first error, its first line. */
    readonly error?: string;
  }[];
  /** Why the file did not load (no test ran), if so. */
  readonly loadError: string | undefined;
}
