import type { LessonManifest } from "../manifest.ts";
import type { TargetReport } from "../run/targets.ts";

/** Where a learner stands on one lesson, from one run of their starter. */
export type LessonProgress =
  /** The starter is as committed and none of the exercise tests passes yet. */
  | { readonly kind: "not_started"; readonly passed: number; readonly total: number }
  | { readonly kind: "in_progress"; readonly passed: number; readonly total: number }
  | { readonly kind: "complete"; readonly total: number }
  /** A test file could not load (often a syntax or import error in the learner's code). */
  | { readonly kind: "load_error"; readonly file: string; readonly message: string }
  /** The run found no tests at all: the lab is incomplete or its tests were removed. */
  | { readonly kind: "no_tests" };

/**
 * Turns a run of a learner's starter (`starterUnchanged`: its files match HEAD) into a
 * progress state. Skipped tests are not counted: a test the learner skipped proves nothing.
 */
export function summarizeProgress(
  manifest: LessonManifest,
  report: TargetReport,
  starterUnchanged: boolean,
): LessonProgress {
  const loadError = report.loadErrors[0];
  if (loadError !== undefined) {
    return { kind: "load_error", file: loadError.file, message: loadError.message };
  }
  const counted = report.tests.filter((test) => test.state !== "skipped");
  if (counted.length === 0) return { kind: "no_tests" };
  const passed = counted.filter((test) => test.state === "passed").length;
  const total = counted.length;
  if (passed === total) return { kind: "complete", total };
  const exercise = new Set(manifest.starter.failing);
  const exercisePassing = counted.some(
    (test) => test.state === "passed" && exercise.has(test.name),
  );
  if (starterUnchanged && !exercisePassing) return { kind: "not_started", passed, total };
  return { kind: "in_progress", passed, total };
}
