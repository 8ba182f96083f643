/**
 * The contract of the lab test runner (implemented in runner.ts): run a lab's shared
 * tests against one or more source folders, in as few vitest processes as serves, and
 * report every test's name, state and, for a failure, its kind.
 */

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
  /**
   * Per-test timeout for this target; at most the lab's own (the default). Mutation gates
   * use a shorter one: a mutant that hangs is caught sooner, and a test that runs in
   * milliseconds on the solution is just as surely broken if it needs hundreds.
   */
  readonly testTimeoutMs?: number;
  /**
   * Targets with the same worker group run as one vitest project whose workers run one
   * target's test file after another's, instead of a fresh worker per target (its start
   * is most of a small target's cost). Each runs from its own copy of the lab's `tests/`
   * (under `<packageDir>/.lab-kit/runs/`), with its own timeout and shuffle. Their
   * `srcDir`s must differ: modules a worker has loaded stay loaded for its next file, so
   * only sources no other member imports are evaluated afresh for each target.
   */
  readonly workerGroup?: string;
}

/**
 * Why a test failed. `load`: the test file could not be loaded (syntax, import, type).
 * `no-assertions`: the test ran without a single `expect` (it proves nothing).
 */
export type FailureKind = "assertion" | "load" | "timeout" | "error" | "no-assertions";

export interface TestOutcome {
  /** Full name: describe titles and the test title joined by " > ". */
  readonly name: string;
  readonly file: string;
  readonly state: "passed" | "failed" | "skipped";
  readonly failure?: { readonly kind: FailureKind; readonly message: string };
  /**
   * Set when the test was declared so that it cannot prove anything on every target:
   * `.skip`/`.skipIf`/`.runIf` or left out by another test's `.only` (vitest keeps no mark
   * on the `.only` test itself), `.todo`, `.fails`.
   */
  readonly modifier?: "skip" | "todo" | "fails";
}

export interface TargetReport {
  readonly label: string;
  readonly tests: readonly TestOutcome[];
  /** Test files that failed to load, with the reason; their tests are absent from `tests`. */
  readonly loadErrors: readonly { readonly file: string; readonly message: string }[];
  /** Imports a file under `tests/` made other than `vitest`, `@lab`, `node:…` and `./…`. */
  readonly forbiddenImports?: readonly { readonly file: string; readonly specifier: string }[];
}

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
  }[];
  /** Why the file did not load (no test ran), if so. */
  readonly loadError: string | undefined;
}
