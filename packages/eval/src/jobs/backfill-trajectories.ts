import type { EvalInvocation } from "../eval-dependencies.ts";
import { readTrajectory, runCutOf, type TrajectoryOf } from "../trajectory-read.ts";
import { type JobFolder, writeTrial } from "./job-folder.ts";
import type { TrialFile } from "./job-spec.ts";
import { keepTrialTrajectory } from "./trial-trajectory.ts";

/**
 * Writes the ATIF file each finished trial lacks — a trial of a job recorded before
 * trajectories were kept, or one whose run could not be read when it ended — from its run's
 * records where they still are (`trajectoryOf` reads the run's folder on this machine). No
 * trial runs again and no model is called. A trial file that gains a trajectory is rewritten
 * atomically with its `trajectory` and nothing else changed; a trial that cannot gain one
 * (no run id, no run folder here, nothing in it) keeps its file as it was, with one warning.
 * Returns the trial files as they now are, in the order given, and how many gained a file.
 */
export async function backfillTrajectories(
  job: JobFolder,
  records: readonly TrialFile[],
  options: {
    readonly trajectoryOf: TrajectoryOf;
    readonly signal: AbortSignal;
    readonly onWarning?: (message: string) => void;
  },
): Promise<{ readonly records: readonly TrialFile[]; readonly written: number }> {
  const now: TrialFile[] = [];
  let written = 0;
  for (const record of records) {
    if (record.trajectory !== undefined || options.signal.aborted) {
      now.push(record);
      continue;
    }
    const { result } = record;
    const read =
      result.runId === undefined
        ? undefined
        : await readTrajectory(options.trajectoryOf, result.runId, runCutOf(result));
    const trajectory = await keepTrialTrajectory(job, {
      taskId: record.taskId,
      trial: record.trial,
      result,
      read,
      onWarning: options.onWarning,
    });
    if (trajectory === undefined) {
      now.push(record);
      continue;
    }
    const { version: _version, ...kept } = record;
    await writeTrial(job, { ...kept, trajectory });
    now.push({ ...record, trajectory });
    written += 1;
  }
  return { records: now, written };
}

/**
 * The job's trial files, each with its ATIF file when its run's records allow one: a job
 * recorded before trajectories were kept (or a trial whose run could not be read then)
 * gains them here, read from the runs' folders, with no model call. Says how many it wrote.
 */
export async function withTrajectories(
  job: JobFolder,
  records: readonly TrialFile[],
  invocation: Pick<EvalInvocation<"regrade" | "resume">, "io" | "deps" | "signal">,
): Promise<readonly TrialFile[]> {
  const { io, deps } = invocation;
  if (deps.trajectoryOf === undefined) return records;
  const filled = await backfillTrajectories(job, records, {
    trajectoryOf: deps.trajectoryOf,
    signal: invocation.signal,
    onWarning: (message) => io.stderr(`警告：${message}\n`),
  });
  if (filled.written > 0)
    io.stderr(
      `评测作业 ${job.spec.jobId}：从运行记录补写了 ${filled.written} 次试验的 ATIF 轨迹（不调用模型）\n`,
    );
  return filled.records;
}
