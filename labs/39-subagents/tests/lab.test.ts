import { runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import {
  type ChildOutcome,
  type ChildRunner,
  type ChildTask,
  createSubagents,
} from "@coding-agent/cli";
import { createPathAllowance } from "@coding-agent/tools";
import { runAll } from "@lab";
import { describe, expect, it } from "vitest";

const never = () => new AbortController().signal;
const tick = () => new Promise((resolve) => setImmediate(resolve));
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tasks that run until the test releases them, or until their signal fires. */
function controlled(count: number) {
  let running = 0;
  let peak = 0;
  const started: number[] = [];
  const release: (() => void)[] = [];
  const sawCancel: boolean[] = Array.from({ length: count }, () => false);
  const tasks: ChildTask<string>[] = Array.from({ length: count }, (_, index) => (signal) => {
    started.push(index);
    running += 1;
    peak = Math.max(peak, running);
    return new Promise<string>((resolve, reject) => {
      release[index] = () => {
        running -= 1;
        resolve(`任务 ${index}`);
      };
      signal.addEventListener(
        "abort",
        () => {
          sawCancel[index] = true;
          running -= 1;
          reject(signal.reason);
        },
        { once: true },
      );
    });
  });
  return { tasks, started, release, sawCancel, peak: () => peak };
}

describe("runAll", () => {
  it("returns each task's value", async () => {
    const tasks = [1, 2, 3].map((n) => async () => n * 10);
    expect(await runAll(tasks, { limit: 2, signal: never() })).toEqual([
      { ok: true, value: 10 },
      { ok: true, value: 20 },
      { ok: true, value: 30 },
    ]);
  });

  it("answers in call order, not in the order the tasks finish", async () => {
    const run = controlled(3);
    const all = runAll(run.tasks, { limit: 3, signal: never() });
    await tick();
    for (const index of [2, 0, 1]) {
      run.release[index]?.();
      await tick();
    }
    const values = (await all).map((result) => (result.ok ? result.value : "失败"));
    expect(values, "结果要按调用顺序，第 i 个任务在第 i 位").toEqual([
      "任务 0",
      "任务 1",
      "任务 2",
    ]);
  });

  it("runs at most limit at once, the next one as soon as one ends", async () => {
    const run = controlled(5);
    const all = runAll(run.tasks, { limit: 2, signal: never() });
    await tick();
    expect(run.started, "limit 是 2：一开始只开始前两个").toEqual([0, 1]);
    run.release[1]?.();
    await tick();
    expect(run.started, "第 1 个一结束，马上开始第 2 个（不等第 0 个）").toEqual([0, 1, 2]);
    for (const index of [0, 2, 3, 4]) {
      run.release[index]?.();
      await tick();
    }
    await all;
    expect(run.peak(), "任何时候最多 2 个同时运行").toBe(2);
  });

  it("passes the cancel to every running task", async () => {
    const controller = new AbortController();
    const got: string[] = [];
    // Each one stops on its signal; without it, it would end by itself after a while.
    const task: ChildTask<string> = (signal) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve("没收到取消"), 300);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            got.push("收到取消");
            reject(signal.reason);
          },
          { once: true },
        );
      });
    const all = runAll([task, task], { limit: 2, signal: controller.signal });
    await tick();
    controller.abort(new Error("父运行被取消"));
    const settled = await all.then(
      (results) => ({ results }),
      (error: unknown) => ({ rejected: error }),
    );
    expect(got, "正在运行的两个子 Agent 都要收到父运行的取消").toEqual(["收到取消", "收到取消"]);
    expect(settled, "runAll 本身不能 reject：被取消的子 Agent 是一个失败的结果").not.toHaveProperty(
      "rejected",
    );
    const results = "results" in settled ? settled.results : [];
    expect(results).toEqual([
      { ok: false, error: new Error("父运行被取消") },
      { ok: false, error: new Error("父运行被取消") },
    ]);
  });

  it("starts no task after the cancel", async () => {
    const controller = new AbortController();
    const started: number[] = [];
    // Each one stops on its signal, or ends by itself a little later.
    const tasks: ChildTask<string>[] = [0, 1, 2].map((index) => (signal) => {
      started.push(index);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(`任务 ${index}`), 100);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    });
    const all = runAll(tasks, { limit: 1, signal: controller.signal });
    await tick();
    controller.abort(new Error("父运行被取消"));
    const results = await all;
    expect(started, "取消之后不再开始新的子 Agent").toEqual([0]);
    expect(results.slice(1), "没开始的任务：结果是取消的原因").toEqual([
      { ok: false, error: new Error("父运行被取消") },
      { ok: false, error: new Error("父运行被取消") },
    ]);
  });

  it("turns a task that throws into a result, and the others still run", async () => {
    const tasks: ChildTask<string>[] = [
      async () => "第一个",
      () => {
        throw new Error("同步抛错");
      },
      () => Promise.reject(new Error("工作区副本建不出来")),
      async () => "最后一个",
    ];
    const results = await runAll(tasks, { limit: 2, signal: never() }).catch(
      (error: unknown) => `整批 reject 了：${String(error)}`,
    );
    expect(results, "一个子 Agent 失败是一个结果，不能让整批失败").toEqual([
      { ok: true, value: "第一个" },
      { ok: false, error: new Error("同步抛错") },
      { ok: false, error: new Error("工作区副本建不出来") },
      { ok: true, value: "最后一个" },
    ]);
  });

  it("refuses a limit that is not an integer ≥ 1", async () => {
    for (const limit of [0, -1, 1.5]) {
      await expect(runAll([], { limit, signal: never() }), `limit ${limit}`).rejects.toThrow(
        RangeError,
      );
    }
  });
});

const spawn = (goal: string) => ({ type: "tool_call", tool: "spawn_agent", input: { goal } });
const finish = { action: { type: "finish", summary: "子 Agent 的结果都看过了" } };

function outcome(goal: string): ChildOutcome {
  return {
    status: "completed",
    code: "finished",
    summary: `${goal}：好了`,
    patch: "",
    files: [],
    excluded: [],
    steps: 1,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: null,
  };
}

/** A parent run with the capstone's spawn_agent, children scheduled by your runAll. */
async function parentRun(options: {
  readonly goals: readonly string[];
  readonly limit: number;
  readonly runChild: ChildRunner;
  readonly controller?: AbortController;
  /** Called as soon as the parent's run returned, before the children are closed. */
  readonly onReturned?: () => void;
}) {
  const controller = options.controller ?? new AbortController();
  const limits = { maxSteps: 10 };
  const subagents = createSubagents({
    limit: options.limit,
    limits,
    parentAllows: createPathAllowance([]),
    runChild: options.runChild,
    signal: controller.signal,
    runAll,
  });
  const provider = createScriptedProvider([{ actions: options.goals.map(spawn) }, finish]);
  try {
    const result = await runAgent(
      "分给子 Agent 去做",
      provider,
      subagents.tools,
      limits,
      controller.signal,
      {
        extensions: [subagents.extension],
      },
    );
    options.onReturned?.();
    const spawned = result.messages
      .filter((message) => message.role === "tool")
      .map((message) => ("content" in message ? JSON.parse(String(message.content)) : undefined));
    return { result, spawned };
  } finally {
    await subagents.close();
  }
}

describe("runAll inside the capstone's spawn_agent", () => {
  it("several spawn_agent calls of one reply run at once, at most n, answered in call order", async () => {
    let running = 0;
    let peak = 0;
    let thirdStarted = false;
    const runChild: ChildRunner = async (spec) => {
      running += 1;
      peak = Math.max(peak, running);
      if (spec.goal === "三") thirdStarted = true;
      await wait(20);
      // The first child ends only once the third has started: it ends last of the first two.
      if (spec.goal === "一") {
        for (let waited = 0; !thirdStarted && waited < 50; waited += 1) await wait(10);
      }
      running -= 1;
      return outcome(spec.goal);
    };
    const { result, spawned } = await parentRun({ goals: ["一", "二", "三"], limit: 2, runChild });
    expect(result.status).toBe("completed");
    expect(peak, "--subagents 2：最多 2 个子 Agent 同时运行").toBe(2);
    expect(thirdStarted, "第二个结束以后，第三个在第一个还在运行时就开始了").toBe(true);
    expect(spawned.map((value) => value.summary)).toEqual(["一：好了", "二：好了", "三：好了"]);
  });

  it("cancelling the parent reaches every running child", async () => {
    const controller = new AbortController();
    const endings: Promise<string>[] = [];
    let started = 0;
    let returned = false;
    const runChild: ChildRunner = (spec, _budget, signal) => {
      started += 1;
      const ending = new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve(`${spec.goal}：没收到取消`), 500);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            // After the run returned, the runtime closes every child anyway: too late.
            resolve(`${spec.goal}：${returned ? "父运行结束以后才收到取消" : "收到取消"}`);
          },
          { once: true },
        );
      });
      endings.push(ending);
      return ending.then((text) => ({ ...outcome(spec.goal), status: "cancelled", summary: text }));
    };
    const running = parentRun({
      goals: ["甲", "乙"],
      limit: 2,
      runChild,
      controller,
      onReturned: () => {
        returned = true;
      },
    });
    for (let waited = 0; started < 2 && waited < 100; waited += 1) await wait(5);
    controller.abort();
    const { result } = await running;
    expect(result.status).toBe("cancelled");
    expect(await Promise.all(endings), "父运行取消时，两个正在运行的子 Agent 都要马上收到").toEqual(
      ["甲：收到取消", "乙：收到取消"],
    );
  });

  it("a child that throws is a failed result, and the parent run goes on", async () => {
    const runChild: ChildRunner = async (spec) => {
      if (spec.goal === "坏") throw new Error("工作区副本建不出来");
      return outcome(spec.goal);
    };
    const { result, spawned } = await parentRun({ goals: ["坏", "好"], limit: 2, runChild });
    expect(result.status).toBe("completed");
    expect(spawned[0]).toMatchObject({ status: "failed", code: "subagent_error" });
    expect(spawned[0].summary).toContain("工作区副本建不出来");
    expect(spawned[1]).toMatchObject({ status: "completed", summary: "好：好了" });
  });
});
