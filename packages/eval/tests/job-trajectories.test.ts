/**
 * `runJobTrials` with `trajectoryOf`: each trial's run is stored in the job folder as the
 * trial finishes, named by its trial file; a trajectory that cannot be read never costs the
 * trial its result.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  createJob,
  readJobTrials,
  runJobTrials,
  type TrajectoryOf,
  trialsOf,
} from "../src/index.ts";
import { fakeRunner, scratch, task } from "./support/suite.ts";

const never = new AbortController().signal;

/** A job of `tasks` with `trials` trials each, in a fresh folder. */
async function jobOf(tasks: ReturnType<typeof task>[], trials: number) {
  return createJob({
    jobsDir: await scratch(),
    suite: "s",
    suiteDir: await scratch(),
    tasks,
    trials,
    keepWorkspaces: false,
  });
}

describe("runJobTrials({ trajectoryOf })", () => {
  it("writes each trial's trajectory to atif/<task>/<n>.json and names it in the trial file", async () => {
    const job = await jobOf([task({ id: "one", goal: "ok" })], 2);
    const asked: string[] = [];
    const trajectoryOf: TrajectoryOf = async (runId) => {
      asked.push(runId);
      return { ok: true, trajectory: { session_id: runId, steps: [] } };
    };
    const outcome = await runJobTrials(job, trialsOf(job.spec.tasks, 2), {
      runner: fakeRunner(),
      concurrency: 1,
      signal: never,
      trajectoryOf,
    });
    expect(outcome.kind).toBe("done");
    // The fake agent names its run `fake-<goal>`: the run each trial had.
    expect(asked).toEqual(["fake-ok", "fake-ok"]);
    const recorded = await readJobTrials(job);
    for (const trial of [1, 2]) {
      const file = recorded.done.get(`one#${trial}`);
      expect(file?.trajectory).toBe(path.join("atif", "one", `${trial}.json`));
      const stored = JSON.parse(await readFile(path.join(job.dir, file?.trajectory ?? ""), "utf8"));
      expect(stored).toEqual({ session_id: "fake-ok", steps: [] });
    }
  });

  it("records a trial whose trajectory cannot be read without one, and says so once", async () => {
    const job = await jobOf([task({ id: "refused" }), task({ id: "thrown" })], 1);
    const warnings: string[] = [];
    const outcome = await runJobTrials(job, trialsOf(job.spec.tasks, 1), {
      runner: fakeRunner(),
      concurrency: 1,
      signal: never,
      trajectoryOf: async (runId) => {
        if (warnings.length === 0) return { ok: false, message: `没有 ${runId} 的状态日志` };
        throw new Error("磁盘坏了");
      },
      onWarning: (message) => warnings.push(message),
    });
    expect(outcome.kind === "done" && outcome.results.map((result) => result.passed)).toEqual([
      true,
      true,
    ]);
    const recorded = await readJobTrials(job);
    expect(recorded.pending).toEqual([]);
    expect([...recorded.done.values()].map((file) => file.trajectory)).toEqual([
      undefined,
      undefined,
    ]);
    expect(warnings).toEqual([
      "refused 的 ATIF 轨迹没有写出：没有 fake-ok 的状态日志",
      "thrown 的 ATIF 轨迹没有写出：磁盘坏了",
    ]);
  });

  it("asks for no trajectory of a trial that had no run", async () => {
    const job = await jobOf([task({ id: "broken", goal: "crash" })], 1);
    const asked: string[] = [];
    const warnings: string[] = [];
    await runJobTrials(job, trialsOf(job.spec.tasks, 1), {
      runner: fakeRunner(),
      concurrency: 1,
      signal: never,
      trajectoryOf: async (runId) => {
        asked.push(runId);
        return { ok: true, trajectory: {} };
      },
      onWarning: (message) => warnings.push(message),
    });
    const recorded = await readJobTrials(job);
    expect(recorded.done.get("broken#1")?.result.code).toBe("crash");
    expect(recorded.done.get("broken#1")?.trajectory).toBeUndefined();
    expect([asked, warnings]).toEqual([[], []]);
  });
});
