import { ScriptSchema } from "@coding-agent/agent-core/testing";
import { z } from "zod";
import { GRADER_NAMES } from "../graders.ts";
import { type EvalTask, RUN_STATUSES } from "../task-file.ts";

/** The version of `job.json` and of the trial files; a reader refuses any other. */
export const JOB_FORMAT_VERSION = 1;

/** A job id: the start time (sortable, UTC) and random hex, nothing that could name another folder. */
export const JOB_ID_PATTERN = /^[0-9A-Za-z][0-9A-Za-z_-]{0,99}$/;

const FixtureFileSchema = z.strictObject({
  path: z.string().min(1),
  base64: z.string(),
  executable: z.boolean(),
});

/** A task as the job recorded it: what the suite held when the job began, fixture included. */
const EvalTaskSchema = z.strictObject({
  id: z.string().min(1),
  goal: z.string(),
  testCommand: z.string(),
  allowPaths: z.array(z.string()),
  forbiddenPaths: z.array(z.string()),
  script: ScriptSchema.optional(),
  args: z.array(z.string()),
  expectStatus: z.enum(RUN_STATUSES),
  timeoutMs: z.int().positive().optional(),
  files: z.array(FixtureFileSchema),
});

/**
 * `<job>/job.json`: what a job is, written once before its first trial. A resume runs the
 * trials of these tasks that have no result; a regrade grades their kept workspaces again.
 */
export const JobSpecSchema = z.strictObject({
  version: z.literal(JOB_FORMAT_VERSION),
  jobId: z.string().regex(JOB_ID_PATTERN),
  suite: z.string(),
  suiteDir: z.string(),
  createdAt: z.string(),
  trials: z.int().positive(),
  timeoutMs: z.int().positive().optional(),
  keepWorkspaces: z.boolean(),
  tasks: z.array(EvalTaskSchema).min(1),
});
/** A job as recorded; its tasks are the harness's own `EvalTask`s (the schema checks them on read). */
export type JobSpec = Omit<z.infer<typeof JobSpecSchema>, "tasks"> & {
  readonly tasks: readonly EvalTask[];
};

const VerdictSchema = z.strictObject({ pass: z.boolean(), detail: z.string() });

/** A report row as a trial file holds it (`TaskResult`). */
const TaskResultSchema = z.strictObject({
  id: z.string(),
  trial: z.int().positive().optional(),
  passed: z.boolean(),
  status: z.string(),
  code: z.string(),
  graders: z.strictObject(
    Object.fromEntries(GRADER_NAMES.map((name) => [name, VerdictSchema])) as Record<
      (typeof GRADER_NAMES)[number],
      typeof VerdictSchema
    >,
  ),
  durationMs: z.number().nonnegative(),
  runId: z.string().optional(),
  error: z.string().optional(),
});

/**
 * `<job>/trials/<taskId>/<trial>.json`: one finished trial, written atomically once it has
 * its grades. `workspace` is the kept trial folder (`--keep-workspaces`), relative to the job;
 * `trajectory` the trial's run as ATIF (written just before this file).
 */
export const TrialFileSchema = z.strictObject({
  version: z.literal(JOB_FORMAT_VERSION),
  taskId: z.string(),
  trial: z.int().positive(),
  finishedAt: z.string(),
  result: TaskResultSchema,
  workspace: z.string().optional(),
  /** The trial's run as an ATIF trajectory file, relative to the job (absent: the trial had no run). */
  trajectory: z.string().optional(),
  /** When the graders last ran again on the kept workspace (`coding-agent eval regrade`). */
  regradedAt: z.string().optional(),
});
export type TrialFile = z.infer<typeof TrialFileSchema>;
