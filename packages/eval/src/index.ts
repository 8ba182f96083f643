/** `@coding-agent/eval`: run the coding agent on a suite of tasks, grade the workspaces, report, gate. */

export { type BaselineTask, loadBaseline } from "./baseline.ts";
export {
  EVAL_FLAGS,
  type EvalCommand,
  evalUsage,
  parseEvalArgs,
  type ReportOptions,
} from "./eval-args.ts";
export { type EvalIo, runEvalCommand } from "./eval-command.ts";
export type { EvalDependencies, EvalInvocation } from "./eval-dependencies.ts";
export { EVAL_EXIT_CODES } from "./eval-exit-codes.ts";
export {
  changedPaths,
  type FixtureFile,
  readFixture,
  snapshotFixture,
  snapshotWorkspace,
  type WorkspaceSnapshot,
  writeFixture,
} from "./fixture.ts";
export {
  GRADER_NAMES,
  type GraderName,
  type GraderVerdict,
  type Grades,
  gradeDiffInScope,
  gradeForbiddenUntouched,
  gradeStatus,
  gradeTestsPass,
} from "./graders.ts";
export {
  DEFAULT_CONCURRENCY,
  type HarnessOutcome,
  type OnTaskFinished,
  type Pool,
  type PoolOptions,
  type PoolOutcome,
  progressLine,
  type RecordTrial,
  runPool,
  runTasks,
  runTrials,
  withTrial,
} from "./harness.ts";
export { escapeHtml, renderHtmlReport } from "./html-report.ts";
export { writeFileAtomic } from "./jobs/atomic-write.ts";
export { backfillTrajectories } from "./jobs/backfill-trajectories.ts";
export {
  createJob,
  type JobFolder,
  type JobTrials,
  keptTrialDir,
  newJobId,
  openJob,
  readJobTrials,
  trialKey,
  writeTrial,
} from "./jobs/job-folder.ts";
export {
  JOB_FORMAT_VERSION,
  type JobSpec,
  JobSpecSchema,
  type TrialFile,
  TrialFileSchema,
} from "./jobs/job-spec.ts";
export { type RegradeOutcome, regradeTrials } from "./jobs/regrade.ts";
export { runJobTrials } from "./jobs/run-job.ts";
export {
  keepTrialTrajectory,
  trialTrajectoryPath,
  writeTrialTrajectory,
} from "./jobs/trial-trajectory.ts";
export { renderJunit, xml } from "./junit.ts";
export { countTrials, passAtK, suitePassAtK, type TrialCount } from "./pass-at-k.ts";
export { PASS_RATE_TOLERANCE, type PassRateDrop, passRateDrops } from "./pass-rate-gate.ts";
export { diffSnapshots, type FileChange } from "./patch.ts";
export { type ProcessOutcome, runProcessGroup } from "./process-group.ts";
export {
  canReach,
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_STALLED_INTERVAL_MS,
  MAX_STALLED_COUNT,
  parseQueueUrl,
  QUEUE_NAME,
  type RedisAddress,
  runQueueWorker,
  runTasksOnQueue,
  runTrialsOnQueue,
} from "./queue.ts";
export {
  buildReport,
  describeDrop,
  type EvalReport,
  type FindRegressions,
  findRegressions,
  formatTerminalReport,
  hasHarnessError,
  type StopKind,
  stopKindOf,
  type TaskPassRate,
} from "./report.ts";
export { deliverReport, readGateBaseline } from "./report-output.ts";
export {
  type AgentRunner,
  crashedTask,
  DEFAULT_TASK_TIMEOUT_MS,
  gradeWorkspace,
  HARNESS_ERROR_STATUS,
  runTask,
  type TaskResult,
  workspaceIn,
} from "./run-task.ts";
export {
  type EvalSuite,
  type EvalTask,
  loadSuite,
  RESERVED_RUN_FLAGS,
  type ReservedFlagCheck,
  RUN_STATUSES,
  type RunArgsValidator,
  reservedFlagIn,
  TaskFileSchema,
} from "./task-file.ts";
export {
  type RunCut,
  readTrajectory,
  runCutOf,
  type TrajectoryOf,
  type TrajectoryRead,
} from "./trajectory-read.ts";
export { type EvalTrial, trialLabel, trialsOf } from "./trial.ts";
