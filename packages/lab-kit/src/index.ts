export { InvalidRunTargetError, LabKitError } from "./errors.ts";
export { findRepoRoot, readBlobs, readCommittedTree, readCommittedTrees } from "./git.ts";
export { type LabLocation, listLabs, normalizeLessonId } from "./labs.ts";
export { type LintPart, lintRepository } from "./lint-repo.ts";
export {
  type Hint,
  type LessonManifest,
  lessonManifestSchema,
  loadManifest,
  type ManifestResult,
  type Mutation,
  parseManifest,
} from "./manifest.ts";
export { type RunOptions, runLabAndPackageTests, runLabTargets } from "./run/runner.ts";
export type {
  FailureKind,
  PackageTestFile,
  PackageTestRun,
  RunTarget,
  TargetReport,
  TestOutcome,
} from "./run/targets.ts";
export {
  runNewLessonCli,
  type ScaffoldResult,
  scaffoldLesson,
} from "./scaffold/scaffold-lesson.ts";
export { type CliOutput, EXIT_CODES, type ExitCode, processOutput } from "./tool-output.ts";
export {
  type CheckLine,
  formatSummary,
  formatVerdict,
  isSound,
  type LabVerdict,
} from "./verify/check-line.ts";
export { runVerifyCli } from "./verify/verify-cli.ts";
export { type VerifyOptions, verifyLessons } from "./verify/verify-lessons.ts";
