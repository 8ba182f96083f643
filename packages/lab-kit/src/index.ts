export { listLabs, normalizeLessonId } from "./labs.ts";
export { lintRepository } from "./lint-repo.ts";
export { runLabAndPackageTests, runLabTargets } from "./run/runner.ts";
export type { RunTarget, TargetReport, TestOutcome } from "./run/targets.ts";
export { runNewLessonCli, scaffoldLesson } from "./scaffold/scaffold-lesson.ts";
export { type CliOutput, EXIT_CODES, processOutput } from "./tool-output.ts";
export { formatVerdict, type LabVerdict } from "./verify/check-line.ts";
export { runVerifyCli } from "./verify/verify-cli.ts";
export { verifyLessons } from "./verify/verify-lessons.ts";
