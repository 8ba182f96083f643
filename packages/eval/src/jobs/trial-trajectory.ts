import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { TaskResult } from "../run-task.ts";
import { runCutOf, type TrajectoryRead } from "../trajectory-read.ts";
import { trialLabel } from "../trial.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import type { JobFolder } from "./job-folder.ts";

/** Where a trial's trajectory is kept, relative to the job (as its trial file records it). */
export function trialTrajectoryPath(taskId: string, trial: number): string {
  return path.join("atif", taskId, `${trial}.json`);
}

/**
 * Writes a trial's trajectory into the job folder, atomically, before the trial's result file:
 * a trial file that names its trajectory always finds it whole. Returns the path the trial
 * file records, or the reason there is none (the trial is recorded all the same).
 */
export async function writeTrialTrajectory(
  job: JobFolder,
  options: { readonly taskId: string; readonly trial: number; readonly read: TrajectoryRead },
): Promise<
  { readonly ok: true; readonly path: string } | { readonly ok: false; readonly message: string }
> {
  if (!options.read.ok) return options.read;
  const relative = trialTrajectoryPath(options.taskId, options.trial);
  const target = path.join(job.dir, relative);
  try {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFileAtomic(target, `${JSON.stringify(options.read.trajectory, null, 2)}\n`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { ok: false, message: `写不了 ${target}（${code}）` };
  }
  return { ok: true, path: relative };
}

/**
 * Keeps a finished trial's run in the job as ATIF: `read` (here, or shipped back by the
 * worker that ran it) written to `atif/<task>/<n>.json`, the path its trial file records. A
 * run that was killed (a timeout, a crash) is kept as far as its records go, marked
 * incomplete by the reader. A trial left without a file gets one warning saying why (no run
 * to read, nothing the run left, a write that failed), and is recorded all the same.
 */
export async function keepTrialTrajectory(
  job: JobFolder,
  options: {
    readonly taskId: string;
    readonly trial: number;
    readonly result: TaskResult;
    /** The trial's run as read; undefined when no one read it (no run id, a worker without a reader). */
    readonly read: TrajectoryRead | undefined;
    readonly onWarning?: ((message: string) => void) | undefined;
  },
): Promise<string | undefined> {
  const { taskId, trial, result, read } = options;
  const cut = runCutOf(result);
  const label = trialLabel(taskId, trial, job.spec.trials);
  const warn = (why: string) => {
    const who = cut === undefined ? `${label} ` : `${label}（${result.code}）`;
    options.onWarning?.(`${who}的 ATIF 轨迹没有写出：${why}`);
    return undefined;
  };
  if (result.runId === undefined)
    return warn("没有运行记录可读（运行没有开始，或没有报出运行 id）");
  if (read === undefined) return warn("运行它的 worker 没有带回轨迹");
  if (!read.ok && cut !== undefined) return warn(`运行没有留下可读的记录：${read.message}`);
  const written = await writeTrialTrajectory(job, { taskId, trial, read });
  return written.ok ? written.path : warn(written.message);
}
