import { createHash } from "node:crypto";
import type { Hint, LessonManifest } from "../manifest.ts";
import type { TestOutcome } from "../run/targets.ts";
import type { OutsideEdit } from "./outside-edits.ts";

/**
 * A stable key for a hint: its test and text. Editing a hint's text makes it a new hint,
 * so a learner is never told "already shown" about words they have not read.
 */
export function hintKey(hint: Hint): string {
  return createHash("sha256")
    .update(`${hint.test ?? ""}\u0000${hint.text}`)
    .digest("hex")
    .slice(0, 16);
}

/**
 * The first failing test: files in name order (a runner reports them as they finish, which
 * varies), and tests in declaration order within a file.
 */
export function firstFailingTest(tests: readonly TestOutcome[]): TestOutcome | undefined {
  let first: TestOutcome | undefined;
  for (const test of tests) {
    if (test.state !== "failed") continue;
    if (first === undefined || test.file.localeCompare(first.file) < 0) first = test;
  }
  return first;
}

/**
 * The hints that apply to a failing test, in the manifest's order (a nudge first, nearly
 * the answer last): those written for that test and those written for the whole lesson.
 */
export function hintsForTest(manifest: LessonManifest, testName: string): Hint[] {
  return manifest.hints.filter((hint) => hint.test === undefined || hint.test === testName);
}

/**
 * Why a test the pristine starter passed fails now, as far as the files can tell:
 * `outside` — the learner edited code outside the exercise regions (listed);
 * `inside` — nothing outside the regions changed, so the learner's region code broke it;
 * `unknown` — there is no committed starter to compare with.
 */
export type Regression =
  | { readonly where: "outside"; readonly edits: readonly OutsideEdit[] }
  | { readonly where: "inside" }
  | { readonly where: "unknown" };

/** What the lesson says about a test: what it checks, and the mistakes known to break it. */
export interface TestIntent {
  /** Rubric criteria the test proves, in Chinese. */
  readonly checks: readonly string[];
  /** Descriptions of the lesson's mutation gates that break the test: its known mistakes. */
  readonly mistakes: readonly string[];
}

/** The rubric criteria a test proves and the mutation gates that break it. */
export function intentOf(manifest: LessonManifest, testName: string): TestIntent {
  return {
    checks: manifest.rubric
      .filter((row) => row.proof.includes(testName))
      .map((row) => row.criterion),
    mistakes: manifest.mutations
      .filter((mutation) => mutation.breaks.includes(testName))
      .map((mutation) => mutation.description),
  };
}

/** What `lesson hint` should say next. */
export type HintSelection =
  /** A hint not shown before; `position` is 1-based among `total` hints for this test. */
  | {
      readonly kind: "next";
      readonly test: TestOutcome;
      readonly hint: Hint;
      readonly position: number;
      readonly total: number;
      /** Set when the pristine starter passed this test (an exercise test leaves it out). */
      readonly regression?: Regression;
      readonly intent: TestIntent;
    }
  /** Every hint for this test has been shown; repeat the last, most detailed one. */
  | {
      readonly kind: "exhausted";
      readonly test: TestOutcome;
      readonly hint: Hint;
      readonly total: number;
      readonly regression?: Regression;
      readonly intent: TestIntent;
    }
  /**
   * A test the pristine starter passed fails, and the learner changed code outside the
   * exercise regions: those edits are the first suspects, whatever the hints say.
   */
  | {
      readonly kind: "outside_edit";
      readonly test: TestOutcome;
      readonly edits: readonly OutsideEdit[];
    }
  /** No hint is written for this test: what it checks and its known mistakes instead. */
  | {
      readonly kind: "no_hint";
      readonly test: TestOutcome;
      readonly isExercise: boolean;
      readonly intent: TestIntent;
      readonly regression?: Regression;
    }
  /** Nothing fails: no hint needed. */
  | { readonly kind: "all_passing" };

/**
 * Chooses the next hint for the first failing test, skipping hints whose keys are in
 * `shown`. Pure: the caller records the choice. `outside` is what the caller found
 * outside the exercise regions (undefined: nothing to compare with). A failing test that
 * the pristine starter passed is blamed on those edits only when there are some; with none,
 * the learner's own region code broke it, and the test's hints and intent are what help.
 */
export function chooseNextHint(
  manifest: LessonManifest,
  tests: readonly TestOutcome[],
  shown: ReadonlySet<string>,
  outside?: readonly OutsideEdit[],
): HintSelection {
  const test = firstFailingTest(tests);
  if (test === undefined) return { kind: "all_passing" };
  const isExercise = manifest.starter.failing.includes(test.name);
  let regression: Regression | undefined;
  if (!isExercise) {
    if (outside !== undefined && outside.length > 0) {
      return { kind: "outside_edit", test, edits: outside };
    }
    regression = outside === undefined ? { where: "unknown" } : { where: "inside" };
  }
  const intent = intentOf(manifest, test.name);
  const extra = regression === undefined ? { intent } : { regression, intent };
  const hints = hintsForTest(manifest, test.name);
  const last = hints.at(-1);
  if (last === undefined) {
    return { kind: "no_hint", test, isExercise, ...extra };
  }
  const index = hints.findIndex((hint) => !shown.has(hintKey(hint)));
  const hint = hints[index];
  if (hint === undefined) {
    return { kind: "exhausted", test, hint: last, total: hints.length, ...extra };
  }
  return { kind: "next", test, hint, position: index + 1, total: hints.length, ...extra };
}

/**
 * The hint to keep on screen under a watch run: the most detailed one already revealed
 * for the first failing test, or its first hint. Never reveals more on its own.
 */
export function currentHint(
  manifest: LessonManifest,
  tests: readonly TestOutcome[],
  shown: ReadonlySet<string>,
  outside?: readonly OutsideEdit[],
): HintSelection {
  const first = chooseNextHint(manifest, tests, new Set(), outside);
  if (first.kind !== "next") return first;
  const hints = hintsForTest(manifest, first.test.name);
  const position = Math.max(
    1,
    ...hints.map((hint, index) => (shown.has(hintKey(hint)) ? index + 1 : 0)),
  );
  return { ...first, hint: hints[position - 1] ?? first.hint, position };
}
