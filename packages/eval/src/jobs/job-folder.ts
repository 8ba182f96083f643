import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { formatValueIssues, toValueIssues } from "@coding-agent/agent-core";
import type { EvalTask } from "../task-file.ts";
import type { EvalTrial } from "../trial.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import {
  JOB_FORMAT_VERSION,
  JOB_ID_PATTERN,
  type JobSpec,
  JobSpecSchema,
  type TrialFile,
  TrialFileSchema,
} from "./job-spec.ts";

/**
 * A job's folder, `<jobsDir>/<jobId>/` (the CLI's jobsDir is `$CODING_AGENT_HOME/evals`):
 * `job.json`, then `trials/<taskId>/<trial>.json` as each trial finishes, and with
 * `--keep-workspaces` each trial's folder under `workspaces/<taskId>/<trial>/`.
 */
export interface JobFolder {
  readonly dir: string;
  readonly spec: JobSpec;
}

/** A job id: its start time (sortable, UTC) and 6 random hex digits, like a run's. */
export function newJobId(now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")
    .replace("T", "-");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** Creates the folder of a new job and writes its `job.json` before any trial runs. */
export async function createJob(options: {
  readonly jobsDir: string;
  readonly suite: string;
  readonly suiteDir: string;
  readonly tasks: readonly EvalTask[];
  readonly trials: number;
  readonly timeoutMs?: number;
  readonly keepWorkspaces: boolean;
}): Promise<JobFolder> {
  const jobId = newJobId();
  const dir = path.join(options.jobsDir, jobId);
  await mkdir(path.join(dir, "trials"), { recursive: true, mode: 0o700 });
  const spec: JobSpec = {
    version: JOB_FORMAT_VERSION,
    jobId,
    suite: options.suite,
    suiteDir: options.suiteDir,
    createdAt: new Date().toISOString(),
    trials: options.trials,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    keepWorkspaces: options.keepWorkspaces,
    tasks: options.tasks,
  };
  await writeFileAtomic(path.join(dir, "job.json"), `${JSON.stringify(spec, null, 2)}\n`);
  return { dir, spec };
}

/**
 * Opens a job by id (under `jobsDir`) or by the path of its folder; a Chinese message when
 * there is none or its `job.json` is not one (exit 2).
 */
export async function openJob(
  jobsDir: string,
  ref: string,
): Promise<
  { readonly ok: true; readonly job: JobFolder } | { readonly ok: false; readonly message: string }
> {
  const byPath = ref.includes("/") || ref.includes(path.sep);
  if (!byPath && !JOB_ID_PATTERN.test(ref)) return { ok: false, message: `不是作业 id：${ref}` };
  const dir = byPath ? path.resolve(ref) : path.join(jobsDir, ref);
  const file = path.join(dir, "job.json");
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      message:
        code === "ENOENT"
          ? `没有这个作业：${ref}（找的是 ${file}）`
          : `无法读取作业文件 ${file}：${code ?? (error as Error).message}`,
    };
  }
  const parsed = JobSpecSchema.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      message: `作业文件 ${file} 无效：${formatValueIssues(toValueIssues(parsed.error.issues, "(根)"), "；")}`,
    };
  return { ok: true, job: { dir, spec: parsed.data } };
}

/** Where a trial's result file is. */
function trialFileOf(job: JobFolder, taskId: string, trial: number): string {
  return path.join(job.dir, "trials", taskId, `${trial}.json`);
}

/** The folder a kept trial runs in (relative to the job, as its trial file records it). */
export function keptTrialDir(taskId: string, trial: number): string {
  return path.join("workspaces", taskId, String(trial));
}

/**
 * Records a finished trial: one file, written atomically, so a producer killed at any moment
 * leaves each trial either with its whole result or with none (then a resume runs it).
 */
export async function writeTrial(
  job: JobFolder,
  file: Omit<TrialFile, "version" | "finishedAt"> & { readonly finishedAt?: string },
): Promise<void> {
  const target = trialFileOf(job, file.taskId, file.trial);
  await mkdir(path.dirname(target), { recursive: true });
  const record: TrialFile = {
    version: JOB_FORMAT_VERSION,
    ...file,
    finishedAt: file.finishedAt ?? new Date().toISOString(),
  };
  await writeFileAtomic(target, `${JSON.stringify(record, null, 2)}\n`);
}

/** Where a trial file is missing or unreadable, the trial has no result; both say why. */
export interface JobTrials {
  /** Finished trials, keyed by `trialKey`. */
  readonly done: ReadonlyMap<string, TrialFile>;
  /** Trials of the job without a result, in suite order. */
  readonly pending: readonly EvalTrial[];
  /** Trial files that exist but could not be read (each then counts as pending). */
  readonly unreadable: readonly string[];
}

/** `fix-sum#2`: a trial's key in maps. */
export function trialKey(taskId: string, trial: number): string {
  return `${taskId}#${trial}`;
}

/** Reads every trial file of a job and names the trials that still have no result. */
export async function readJobTrials(job: JobFolder): Promise<JobTrials> {
  const done = new Map<string, TrialFile>();
  const pending: EvalTrial[] = [];
  const unreadable: string[] = [];
  for (const task of job.spec.tasks) {
    const present = new Set(
      await readdir(path.join(job.dir, "trials", task.id)).catch(() => [] as string[]),
    );
    for (let trial = 1; trial <= job.spec.trials; trial += 1) {
      const file = trialFileOf(job, task.id, trial);
      const record = present.has(`${trial}.json`) ? await readTrialFile(file) : undefined;
      if (record === "unreadable") unreadable.push(file);
      if (record === undefined || record === "unreadable") pending.push({ task, trial });
      else done.set(trialKey(task.id, trial), record);
    }
  }
  return { done, pending, unreadable };
}

async function readTrialFile(file: string): Promise<TrialFile | "unreadable"> {
  try {
    const parsed = TrialFileSchema.safeParse(JSON.parse(await readFile(file, "utf8")));
    return parsed.success ? parsed.data : "unreadable";
  } catch {
    return "unreadable";
  }
}
