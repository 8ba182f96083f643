/**
 * `runJobTrials` with `trajectoryOf`: each trial's run is stored in the job folder as the
 * trial finishes, named by its trial file; a trajectory that cannot be read never costs the
 * trial its result.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  backfillTrajectories,
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
    // Nothing to read, and the one line that says so.
    expect(asked).toEqual([]);
    expect(warnings).toEqual([
      "broken（crash）的 ATIF 轨迹没有写出：没有运行记录可读（运行没有开始，或没有报出运行 id）",
    ]);
  });

  it("reads the run of a trial killed at its timeout or dead without a result by the id it gave it, as cut", async () => {
    const job = await jobOf(
      [task({ id: "slow", goal: "hang", timeoutMs: 300 }), task({ id: "broken", goal: "crash" })],
      1,
    );
    let given = 0;
    const asked: [string, string | undefined][] = [];
    const warnings: string[] = [];
    const outcome = await runJobTrials(job, trialsOf(job.spec.tasks, 1), {
      runner: { ...fakeRunner(), newRunId: () => `run-${++given}` },
      concurrency: 1,
      signal: never,
      trajectoryOf: async (runId, cut) => {
        asked.push([runId, cut]);
        return { ok: true, trajectory: { session_id: runId, extra: { incomplete: true } } };
      },
      onWarning: (message) => warnings.push(message),
    });
    expect(outcome.kind === "done" && outcome.results.map((result) => result.code)).toEqual([
      "timeout",
      "crash",
    ]);
    expect(asked).toEqual([
      ["run-1", "timeout"],
      ["run-2", "crash"],
    ]);
    expect(warnings).toEqual([]);
    const recorded = await readJobTrials(job);
    for (const [id, runId] of [
      ["slow", "run-1"],
      ["broken", "run-2"],
    ] as const) {
      const file = recorded.done.get(`${id}#1`);
      expect(file?.result.runId).toBe(runId);
      expect(file?.trajectory).toBe(path.join("atif", id, "1.json"));
      const stored = JSON.parse(await readFile(path.join(job.dir, file?.trajectory ?? ""), "utf8"));
      expect(stored).toEqual({ session_id: runId, extra: { incomplete: true } });
    }
  });

  it("records a timed-out trial whose run left nothing without a trajectory, with one warning", async () => {
    const job = await jobOf([task({ id: "slow", goal: "hang", timeoutMs: 300 })], 1);
    const warnings: string[] = [];
    await runJobTrials(job, trialsOf(job.spec.tasks, 1), {
      runner: { ...fakeRunner(), newRunId: () => "gone" },
      concurrency: 1,
      signal: never,
      trajectoryOf: async (runId) => ({ ok: false, message: `读不到状态日志 ${runId}（ENOENT）` }),
      onWarning: (message) => warnings.push(message),
    });
    const recorded = await readJobTrials(job);
    expect(recorded.pending).toEqual([]);
    const file = recorded.done.get("slow#1");
    expect(file?.result).toMatchObject({ code: "timeout", runId: "gone" });
    expect(file?.trajectory).toBeUndefined();
    expect(warnings).toEqual([
      "slow（timeout）的 ATIF 轨迹没有写出：运行没有留下可读的记录：读不到状态日志 gone（ENOENT）",
    ]);
  });

  it("backfillTrajectories: only trials without a trajectory, every other field kept, one warning per trial it cannot fill", async () => {
    const job = await jobOf(
      [task({ id: "one", goal: "ok" }), task({ id: "broken", goal: "crash" })],
      2,
    );
    await runJobTrials(job, trialsOf(job.spec.tasks, 2), {
      runner: fakeRunner(),
      concurrency: 1,
      signal: never,
    });
    // A job recorded without a reader: no trial has a trajectory.
    const before = [...(await readJobTrials(job)).done.values()];
    expect(before.map((file) => file.trajectory)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const asked: string[] = [];
    const warnings: string[] = [];
    const filled = await backfillTrajectories(job, before, {
      trajectoryOf: async (runId) => {
        asked.push(runId);
        return asked.length === 1
          ? { ok: true, trajectory: { session_id: runId } }
          : { ok: false, message: `读不到 ${runId}` };
      },
      signal: never,
      onWarning: (message) => warnings.push(message),
    });
    expect(filled.written).toBe(1);
    expect(asked).toEqual(["fake-ok", "fake-ok"]);
    expect(warnings).toEqual([
      "one #2 的 ATIF 轨迹没有写出：读不到 fake-ok",
      "broken #1（crash）的 ATIF 轨迹没有写出：没有运行记录可读（运行没有开始，或没有报出运行 id）",
      "broken #2（crash）的 ATIF 轨迹没有写出：没有运行记录可读（运行没有开始，或没有报出运行 id）",
    ]);
    const after = await readJobTrials(job);
    expect(after.done.get("one#1")).toEqual({
      ...before[0],
      trajectory: path.join("atif", "one", "1.json"),
    });
    expect(filled.records).toEqual([...after.done.values()]);
    for (const key of ["one#2", "broken#1", "broken#2"])
      expect(after.done.get(key)).toEqual(
        before.find((file) => `${file.taskId}#${file.trial}` === key),
      );
  });
});
