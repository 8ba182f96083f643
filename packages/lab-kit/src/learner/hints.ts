import { createHash } from "node:crypto";
import type { Hint, LessonManifest } from "../manifest.ts";
import type { TestOutcome } from "../run/targets.ts";

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

/** What `lesson hint` should say next. */
export type HintSelection =
  /** A hint not shown before; `position` is 1-based among `total` hints for this test. */
  | {
      readonly kind: "next";
      readonly test: TestOutcome;
      readonly hint: Hint;
      readonly position: number;
      readonly total: number;
    }
  /** Every hint for this test has been shown; repeat the last, most detailed one. */
  | {
      readonly kind: "exhausted";
      readonly test: TestOutcome;
      readonly hint: Hint;
      readonly total: number;
    }
  /** The failing test is not one the lesson expects to fail, or has no hint written. */
  | { readonly kind: "no_hint"; readonly test: TestOutcome; readonly isExercise: boolean }
  /** Nothing fails: no hint needed. */
  | { readonly kind: "all_passing" };

/**
 * Chooses the next hint for the first failing test, skipping hints whose keys are in
 * `shown`. Pure: the caller records the choice.
 */
export function chooseNextHint(
  manifest: LessonManifest,
  tests: readonly TestOutcome[],
  shown: ReadonlySet<string>,
): HintSelection {
  const test = firstFailingTest(tests);
  if (test === undefined) return { kind: "all_passing" };
  const hints = hintsForTest(manifest, test.name);
  const last = hints.at(-1);
  if (last === undefined) {
    return { kind: "no_hint", test, isExercise: manifest.starter.failing.includes(test.name) };
  }
  const index = hints.findIndex((hint) => !shown.has(hintKey(hint)));
  const hint = hints[index];
  if (hint === undefined) return { kind: "exhausted", test, hint: last, total: hints.length };
  return { kind: "next", test, hint, position: index + 1, total: hints.length };
}

/**
 * The hint to keep on screen under a watch run: the most detailed one already revealed
 * for the first failing test, or its first hint. Never reveals more on its own.
 */
export function currentHint(
  manifest: LessonManifest,
  tests: readonly TestOutcome[],
  shown: ReadonlySet<string>,
): HintSelection {
  const first = chooseNextHint(manifest, tests, new Set());
  if (first.kind !== "next") return first;
  const hints = hintsForTest(manifest, first.test.name);
  const position = Math.max(
    1,
    ...hints.map((hint, index) => (shown.has(hintKey(hint)) ? index + 1 : 0)),
  );
  return { ...first, hint: hints[position - 1] ?? first.hint, position };
}
