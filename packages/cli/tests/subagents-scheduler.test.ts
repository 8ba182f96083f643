/**
 * `runAll` (lesson 39): call order, the bound, cancellation reaching every running task,
 * a throwing task as a result. Tasks finish on events the test controls, not on timers.
 */
import { describe, expect, it } from "vitest";
import { type ChildTask, runAll } from "../src/subagents/scheduler.ts";

/** A task that runs until `release(i)` or its signal; it records when it runs. */
function harness(count: number) {
  let running = 0;
  let peak = 0;
  const started: number[] = [];
  const releases: (() => void)[] = [];
  const sawAbort: boolean[] = [];
  const tasks: ChildTask<string>[] = Array.from({ length: count }, (_, index) => (signal) => {
    started.push(index);
    running += 1;
    peak = Math.max(peak, running);
    return new Promise<string>((resolve, reject) => {
      const end = () => {
        running -= 1;
      };
      releases[index] = () => {
        end();
        resolve(`task ${index}`);
      };
      signal.addEventListener(
        "abort",
        () => {
          sawAbort[index] = true;
          end();
          reject(signal.reason);
        },
        { once: true },
      );
    });
  });
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  return { tasks, started, releases, sawAbort, tick, peak: () => peak };
}

describe("runAll", () => {
  it("answers in call order, whatever order the tasks finish in", async () => {
    const h = harness(3);
    const all = runAll(h.tasks, { limit: 3, signal: new AbortController().signal });
    await h.tick();
    for (const index of [2, 0, 1]) {
      h.releases[index]?.();
      await h.tick();
    }
    expect(await all).toEqual([
      { ok: true, value: "task 0" },
      { ok: true, value: "task 1" },
      { ok: true, value: "task 2" },
    ]);
  });

  it("runs at most limit at once, starting them in call order", async () => {
    const h = harness(5);
    const all = runAll(h.tasks, { limit: 2, signal: new AbortController().signal });
    await h.tick();
    expect(h.started).toEqual([0, 1]);
    for (let index = 0; index < 5; index += 1) {
      h.releases[index]?.();
      await h.tick();
    }
    await all;
    expect(h.started).toEqual([0, 1, 2, 3, 4]);
    expect(h.peak()).toBe(2);
  });

  it("passes the cancel to every running task, and starts none after it", async () => {
    const h = harness(4);
    const controller = new AbortController();
    const all = runAll(h.tasks, { limit: 2, signal: controller.signal });
    await h.tick();
    controller.abort(new Error("父运行取消"));
    const results = await all;
    expect(h.sawAbort.slice(0, 2)).toEqual([true, true]);
    expect(h.started).toEqual([0, 1]);
    expect(results.map((result) => result.ok)).toEqual([false, false, false, false]);
    expect(results[3]).toMatchObject({ ok: false, error: { message: "父运行取消" } });
  });

  it("turns a task that throws or rejects into a result; the others still run", async () => {
    const tasks: ChildTask<string>[] = [
      async () => "first",
      () => {
        throw new Error("同步抛错");
      },
      async () => Promise.reject(new Error("异步失败")),
      async () => "last",
    ];
    const results = await runAll(tasks, { limit: 2, signal: new AbortController().signal });
    expect(results).toEqual([
      { ok: true, value: "first" },
      { ok: false, error: new Error("同步抛错") },
      { ok: false, error: new Error("异步失败") },
      { ok: true, value: "last" },
    ]);
  });

  it("refuses a limit that is not an integer ≥ 1", async () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      await expect(runAll([], { limit, signal: new AbortController().signal })).rejects.toThrow(
        RangeError,
      );
    }
  });
});
