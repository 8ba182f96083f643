import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { isProcessAlive } from "@coding-agent/tools";

/** Who may run a job's trials: one process at a time, so a trial never runs in two at once. */
export type JobLock =
  | { readonly ok: true; readonly release: () => Promise<void> }
  | { readonly ok: false; readonly pid: number };

/**
 * Takes `<job>/owner.lock` for this process (created exclusively, holding its pid). A lock
 * whose process is gone (a producer killed with SIGKILL never released it) is taken over; a
 * lock of a live process is refused, naming it.
 */
export async function lockJob(jobDir: string): Promise<JobLock> {
  const file = path.join(jobDir, "owner.lock");
  // Twice at most: once as it is, once after removing a dead owner's lock.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: "wx" });
      return { ok: true, release: () => rm(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = Number((await readFile(file, "utf8").catch(() => "")).trim());
      if (Number.isSafeInteger(pid) && pid > 0 && isProcessAlive(pid)) return { ok: false, pid };
      await rm(file, { force: true });
    }
  }
  return { ok: false, pid: Number.NaN };
}
