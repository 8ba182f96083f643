/**
 * The learner tools behind `pnpm lessons` and `pnpm lesson hint|reset|diff|watch NN`:
 * progress from one test run, hints that go one step further each time, a reset that
 * backs up first, a diff of the exercise regions, and a notice whenever tests were edited.
 */
export {
  LESSON_ACTIONS,
  LESSON_USAGE,
  LESSONS_USAGE,
  type LessonAction,
  type LessonCommand,
  type ParsedArgs,
  parseLessonArgs,
  parseLessonsArgs,
} from "./cli-args.ts";
export { runDiffCommand } from "./diff-command.ts";
export {
  type ExerciseRegion,
  findExerciseRegions,
  linesOutsideRegions,
  REGION_END,
  REGION_START,
  type RegionScan,
  splitLines,
} from "./exercise-regions.ts";
export { runHintCommand } from "./hint-command.ts";
export {
  type HintState,
  hintStateFile,
  type LoadedHintState,
  loadHintState,
  rememberHint,
  saveHintState,
  shownHints,
  stateDir,
} from "./hint-state.ts";
export {
  chooseNextHint,
  currentHint,
  firstFailingTest,
  type HintSelection,
  hintKey,
  hintsForTest,
} from "./hints.ts";
export {
  describeAvailable,
  describeInspectionProblem,
  inspectLab,
  type LabInspection,
  type LabLookup,
  lookUpLab,
  type ResolvedLab,
} from "./lab-lookup.ts";
export {
  askConfirmation,
  type LearnerContext,
  type RunLabTargets,
  repoRootOf,
} from "./learner-context.ts";
export { runLessonCommand } from "./lesson-command.ts";
export { colorizePatch, diffStarterAgainstSolution, type FileDiff } from "./lesson-diff.ts";
export { collectLessonRows, runLessonsCommand } from "./lessons-command.ts";
export {
  describeState,
  hasUnusableLab,
  type LessonJson,
  type LessonRow,
  nextLesson,
  renderLessonsJson,
  renderLessonsText,
} from "./lessons-report.ts";
export { type LessonProgress, type ProgressInput, summarizeProgress } from "./progress.ts";
export { type ResetOptions, runResetCommand } from "./reset-command.ts";
export {
  applyReset,
  backUpStarter,
  backupDir,
  backupStamp,
  planReset,
  type ResetPlan,
} from "./reset-starter.ts";
export {
  checkTestsIntegrity,
  checkTestsIntegrityOfLabs,
  describeIntegrity,
  type TestsIntegrity,
} from "./tampering.ts";
export { type Colors, colorsFor, displayWidth, type OutputStream, padToWidth } from "./terminal.ts";
export { runWatchCommand } from "./watch-command.ts";
export {
  createHintReporter,
  type ModuleLoadError,
  outcomesOf,
  type WatchRun,
  watchHintLines,
} from "./watch-hints.ts";
export {
  compareWithCommitted,
  compareWithTree,
  foldersWithChanges,
  isUnchanged,
  listFiles,
  type TreeComparison,
} from "./working-tree.ts";
