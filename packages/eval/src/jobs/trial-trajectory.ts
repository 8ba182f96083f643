import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { TrajectoryRead } from "../trajectory-read.ts";
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
