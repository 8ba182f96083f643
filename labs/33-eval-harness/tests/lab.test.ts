import { type EvalTask, type PoolOptions, runTasks, type TaskResult } from "@coding-agent/eval";
import { runPool } from "@lab";
import { describe, expect, it } from "vitest";

/** Lets every settled promise run its continuations: the pool has taken what it will take. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Items whose runs the test finishes by hand: `started` lists what the pool started, in order;
 * `finish(item)` resolves that item's run with its name in capitals, `fail(item)` makes it throw
 * (neither does anything to an item that is not running).
 */
function manual() {
  const started: string[] = [];
  const waiting = new Map<string, { resolve: (v: string) => void; reject: (e: Error) => void }>();
  let pending = 0;
  let most = 0;
  const run = (item: string) =>
    new Promise<string>((resolve, reject) => {
      started.push(item);
      pending += 1;
      most = Math.max(most, pending);
      waiting.set(item, {
        resolve: (value) => {
          pending -= 1;
          resolve(value);
        },
        reject: (error) => {
          pending -= 1;
          reject(error);
        },
      });
    });
  // An item the pool has not started cannot finish: the test's next assertion shows why.
  const take = (item: string) => {
    const entry = waiting.get(item);
    waiting.delete(item);
    return entry;
  };
  return {
    started,
    run,
    most: () => most,
    running: () => [...waiting.keys()],
    finish: async (item: string) => {
      take(item)?.resolve(item.toUpperCase());
      await settle();
    },
    fail: async (item: string) => {
      take(item)?.reject(new Error(`${item} 没有临时目录`));
      await settle();
    },
  };
}

const never = new AbortController().signal;
const crashed = (error: unknown, item: string) => `${item} 崩溃：${(error as Error).message}`;
const options = (
  runs: ReturnType<typeof manual>,
  overrides: Partial<PoolOptions<string, string>> = {},
): PoolOptions<string, string> => ({
  concurrency: 2,
  signal: never,
  run: runs.run,
  crashed,
  ...overrides,
});

describe("runPool", () => {
  it("starts concurrency items at once, and no more", async () => {
    const runs = manual();
    void runPool(["a", "b", "c", "d", "e"], options(runs));
    await settle();
    expect(runs.started, "并发数是 2：一开始就该同时跑 a 和 b，c 还不能开始").toEqual(["a", "b"]);
  });

  it("starts the next item as soon as one finishes, not when the whole batch is done", async () => {
    const runs = manual();
    void runPool(["a", "b", "c", "d", "e"], options(runs));
    await settle();
    await runs.finish("b");
    expect(runs.started, "b 做完了，空出一个位置：c 马上开始，不等 a").toEqual(["a", "b", "c"]);
  });

  it("never has more than concurrency items running, over a whole run", async () => {
    const runs = manual();
    const outcome = runPool(["a", "b", "c", "d", "e", "f"], options(runs, { concurrency: 3 }));
    await settle();
    // Finish the newest running item each time: the pool sees an uneven finishing order.
    while (runs.running().length > 0) await runs.finish(runs.running().at(-1) as string);
    await outcome;
    expect(runs.most(), "同时在跑的任务最多 3 个，而且确实用满了 3 个").toBe(3);
    expect(runs.started, "每个任务都开始了一次").toHaveLength(6);
  });

  it("gives back the results in the items' order, not in the order they finish", async () => {
    const runs = manual();
    const outcome = runPool(["a", "b", "c", "d"], options(runs, { concurrency: 3 }));
    await settle();
    while (runs.running().length > 0) await runs.finish(runs.running().at(-1) as string);
    await expect(outcome, "第 i 个结果属于第 i 个任务").resolves.toEqual({
      kind: "done",
      results: ["A", "B", "C", "D"],
    });
  });

  it("reports each finished item once, in the order they finish, with the count so far", async () => {
    const runs = manual();
    const seen: string[] = [];
    const outcome = runPool(
      ["a", "b", "c"],
      options(runs, {
        onFinished: (result, done, total) => seen.push(`${result} ${done}/${total}`),
      }),
    );
    await settle();
    while (runs.running().length > 0) await runs.finish(runs.running().at(-1) as string);
    await outcome;
    expect(seen.length, "三个任务，三次 onFinished").toBe(3);
    expect(seen.map((line) => line.slice(-3))).toEqual(["1/3", "2/3", "3/3"]);
  });

  it("turns an item whose run throws into its crash result, and runs the others", async () => {
    const runs = manual();
    const outcome = runPool(["a", "b", "c"], options(runs));
    await settle();
    await runs.fail("a");
    while (runs.running().length > 0) await runs.finish(runs.running().at(-1) as string);
    await expect(outcome, "a 崩溃只是 a 的结果；b、c 照样跑完").resolves.toEqual({
      kind: "done",
      results: ["a 崩溃：a 没有临时目录", "B", "C"],
    });
  });

  it("starts nothing after a cancel, and reports the run cancelled", async () => {
    const runs = manual();
    const controller = new AbortController();
    const outcome = runPool(["a", "b", "c", "d"], options(runs, { signal: controller.signal }));
    await settle();
    controller.abort();
    await runs.finish("a");
    await runs.finish("b");
    expect(runs.started, "取消之后，c 和 d 一个也不该开始").toEqual(["a", "b"]);
    await expect(outcome).resolves.toEqual({ kind: "cancelled" });
  });

  it("starts nothing at all when cancelled before it begins", async () => {
    const runs = manual();
    const controller = new AbortController();
    controller.abort();
    const outcome = runPool(["a", "b"], options(runs, { signal: controller.signal }));
    await settle();
    expect(runs.started, "已经取消了：一个任务也不开始").toEqual([]);
    await expect(outcome).resolves.toEqual({ kind: "cancelled" });
  });

  it("gives back no results for no items", async () => {
    const runs = manual();
    await expect(runPool([], options(runs))).resolves.toEqual({ kind: "done", results: [] });
  });
});

/**
 * A stand-in for `coding-agent run`: the harness starts it as `node -e <script> run <goal> …`.
 * Goal `wait:<ms>` finishes after that long, `hang` never does.
 */
const FAKE_AGENT = `
const goal = process.argv[2] ?? "";
const done = () => process.stdout.write(JSON.stringify({ status: "completed", code: "finished", runId: "fake-" + goal }));
if (goal === "hang") setInterval(() => {}, 1000);
else if (goal.startsWith("wait:")) setTimeout(done, Number(goal.slice(5)));
else done();
`;
const runner = { command: process.execPath, args: ["-e", FAKE_AGENT] };

const evalTask = (id: string, goal: string): EvalTask => ({
  id,
  goal,
  testCommand: "true",
  allowPaths: [],
  forbiddenPaths: [],
  args: [],
  expectStatus: "completed",
  files: [{ path: "README.md", base64: Buffer.from("hi\n").toString("base64"), executable: false }],
});

/** Your pool inside the real harness, counting how many tasks it has running at once. */
function countedPool() {
  const count = { started: 0, running: 0, most: 0 };
  const pool = <T, R>(items: readonly T[], poolOptions: PoolOptions<T, R>) =>
    runPool(items, {
      ...poolOptions,
      run: async (item: T, index: number) => {
        count.started += 1;
        count.running += 1;
        count.most = Math.max(count.most, count.running);
        try {
          return await poolOptions.run(item, index);
        } finally {
          count.running -= 1;
        }
      },
    });
  return { pool, count };
}

describe("the real harness", () => {
  it("runs a suite through your pool: two agents at a time, the report in suite order", async () => {
    const { pool, count } = countedPool();
    const tasks = [
      evalTask("slow", "wait:600"),
      evalTask("quick", "wait:50"),
      evalTask("middle", "wait:200"),
      evalTask("last", "wait:50"),
    ];
    const outcome = await runTasks(tasks, { runner, concurrency: 2, signal: never, pool });
    expect(count.most, "总项目的 runTasks 用你的 runPool：同时跑两个 Agent").toBe(2);
    expect(outcome.kind).toBe("done");
    const results = outcome.kind === "done" ? outcome.results : ([] as TaskResult[]);
    expect(
      results.map((result) => [result.id, result.passed]),
      "报告按任务集的顺序",
    ).toEqual([
      ["slow", true],
      ["quick", true],
      ["middle", true],
      ["last", true],
    ]);
  }, 15_000);

  it("stops a suite on a cancel: the running agents are killed, no other one starts", async () => {
    const { pool, count } = countedPool();
    const controller = new AbortController();
    const tasks = ["a", "b", "c", "d"].map((id) => evalTask(id, "hang"));
    setTimeout(() => controller.abort(), 400);
    const outcome = await runTasks(tasks, {
      runner,
      concurrency: 2,
      signal: controller.signal,
      pool,
    });
    expect(count.started, "取消时在跑的两个被停下，c、d 不该开始").toBe(2);
    expect(outcome).toEqual({ kind: "cancelled" });
  }, 15_000);
});
